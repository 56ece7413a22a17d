import Dispatch
import Futures
import Testing

// The examples of docs/futures.md, compiled and run, against small fakes of the APIs they wrap.

/// A callback API of the kind a C library (or an older Swift one) offers.
final class HostDirectory: Sendable {
  final class Lookup: Sendable {
    let cancelled = Counter()
    func cancel() { cancelled.increment() }
  }

  let queue = DispatchQueue(label: "futures.tests.directory")

  func lookup(
    _ name: String,
    completion: @escaping @Sendable (Result<[String], LookupError>) -> Void
  ) -> Lookup {
    queue.async {
      completion(name.isEmpty ? .failure(.notFound) : .success(["\(name).local"]))
    }
    return Lookup()
  }
}

enum LookupError: Error, Equatable {
  case notFound
  case timedOut
}

// Example 1: wrapping a callback API.
func lookUp(_ name: String, in directory: HostDirectory) -> Future<[String], LookupError> {
  Future { resolver in
    let lookup = directory.lookup(name) { result in
      resolver.settle(with: Outcome(result))
    }
    resolver.onCancel { lookup.cancel() }
  }
}

// Example 2's steps: each returns a future, the second from another thread.
struct AudioStream: Sendable {
  var name: String
}

struct AudioSink: Sendable {
  var stream: AudioStream
}

func openStream(_ name: String) -> Future<AudioStream, LookupError> {
  .resolved(AudioStream(name: name))
}

func connectSink(_ stream: AudioStream) -> Future<AudioSink, LookupError> {
  Future { resolver in
    DispatchQueue.global().async { resolver.resolve(AudioSink(stream: stream)) }
  }
}

func startPlayback(_ sink: AudioSink) -> Future<String, LookupError> {
  .resolved("playing \(sink.stream.name)")
}

@Suite("Guide examples")
struct GuideExamplesTests {
  @Test("wrapping a callback API")
  func wrappingACallbackAPI() async {
    let directory = HostDirectory()
    #expect(await lookUp("speaker", in: directory).settled == .success(["speaker.local"]))
    #expect(await lookUp("", in: directory).settled == .failure(.notFound))
  }

  @Test("chaining with collapsing flatMap")
  func chaining() async {
    let playing = openStream("track.flac")
      .flatMap { stream in connectSink(stream) }
      .flatMap { sink in startPlayback(sink) }
    #expect(await playing.settled == .success("playing track.flac"))
  }

  @Test("retry with growing timeouts")
  func retry() async {
    let clock = TestClock()
    let attempts = Counter()
    let hanging = Recorder<Future<String, LookupError>.Resolver>()
    let connected = Future<String, LookupError>.retry(
      attempts: 4,
      initialTimeout: .milliseconds(250),
      factor: 2,
      clock: clock,
      error: .timedOut
    ) { attempt in
      attempts.increment()
      // The first attempt hangs (and is cancelled when it times out); the second answers.
      return attempt == 1 ? Future { resolver in hanging.record(resolver) } : .resolved("connected")
    }
    clock.advance(by: .milliseconds(250))
    #expect(await connected.settled == .success("connected"))
    #expect(attempts.value == 2)
    #expect(hanging.all.first?.isCancelled == true)
  }

  @Test("race of two operations")
  func race() async {
    let (slowMirror, slowResolver) = Future<String, LookupError>.pending()
    let abandoned = Counter()
    slowResolver.onCancel { abandoned.increment() }
    let fastMirror = Future<String, LookupError> { resolver in
      DispatchQueue.global().async { resolver.resolve("from the fast mirror") }
    }
    let fastest = Future.race([slowMirror, fastMirror])
    #expect(await fastest.settled == .success("from the fast mirror"))
    // The race delivers its result first and cancels the loser right after, on the thread that settled it: the
    // awaiting task may resume in between (a ThreadSanitizer run of CI's `make tsan` saw 0 here).
    for _ in 0..<2_000 where abandoned.value == 0 { try? await Task.sleep(for: .milliseconds(1)) }
    #expect(abandoned.value == 1)
    withExtendedLifetime(slowResolver) {}
  }

  @Test("finally-style cleanup")
  func cleanup() async {
    final class Handle: Sendable {
      let closed = Counter()
      func close() { closed.increment() }
    }
    let handle = Handle()
    let file = Future<Handle, LookupError>.resolved(handle)
    let decoded =
      file
      .flatMap { _ in Future<Int, LookupError>.rejected(.notFound) }
      .finally { file.whenSuccess { handle in handle.close() } }
    #expect(await decoded.settled == .failure(.notFound))
    #expect(handle.closed.value == 1)
  }
}
