import Futures
import Testing

@Suite("Outcome")
struct OutcomeTests {
  @Test("accessors, Result conversion, map and get")
  func accessors() throws {
    let success = Outcome<Int, CancellableTestError>(.success(1))
    let failure = Outcome<Int, CancellableTestError>(.failure(.boom))
    let cancelled = Outcome<Int, CancellableTestError>.cancelled
    #expect(success.value == 1 && success.error == nil && !success.isCancelled)
    #expect(failure.value == nil && failure.error == .boom)
    #expect(cancelled.isCancelled && cancelled.result == nil)
    #expect(try success.result?.get() == 1)
    #expect(success.map { $0 + 1 } == .success(2))
    #expect(success.map { _ throws(CancellableTestError) -> Int in throw .boom } == .failure(.boom))
    #expect(try success.get() == 1)
    #expect(throws: CancellableTestError.cancelled) { try cancelled.get() }
    #expect(throws: CancellableTestError.boom) { try failure.get() }
    #expect(Set([success, success, cancelled]).count == 2)
  }
}
