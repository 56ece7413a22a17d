// libFuzzer target: the control protocol's request decoder (ControlRequest.decode, JSON through JSONReader).
//
// Besides "no crash":
// - whatever the reader accepts, Foundation's JSONDecoder (ControlRequestReference, the reading it replaced)
//   accepts too, as the same request: the reader may be stricter, never looser or different;
// - a player command that decodes is written again as a request line (ControlRequest.lineBytes, what `splay
//   ctl` sends) and must decode to the same command.

import Foundation

// Testable: FuzzOracle is internal to the PlayerCore module that run-fuzzers builds for this target.
@testable import PlayerCore

@_cdecl("LLVMFuzzerTestOneInput")
public func controlRequestFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = UnsafeBufferPointer(start: data, count: size)
  guard case .success(let request) = ControlRequest.decode(bytes) else { return 0 }
  switch ControlRequestReference.decode(bytes) {
  case .success(let reference):
    guard sameRequest(request, reference) else {
      fatalError("JSONReader read \(request), JSONDecoder \(reference): \(Array(bytes))")
    }
  case .failure(let error):
    fatalError("JSONReader accepted what JSONDecoder refuses (\(error.message)): \(request) from \(Array(bytes))")
  }
  guard case .player(let command) = request.kind else { return 0 }
  let encoded = ControlRequest(id: request.id, kind: .player(command)).lineBytes().dropLast()
  switch ControlRequest.decode(encoded) {
  case .success(let again):
    guard case .player(let back) = again.kind, FuzzOracle.sameCommand(command, back) else {
      fatalError("JSON round trip changed \(command) into \(again.kind)")
    }
  case .failure(let error):
    fatalError("the encoded form of \(command) does not decode: \(String(decoding: encoded, as: UTF8.self)): \(error)")
  }
  return 0
}

/// The same id and the same request (commands compared as ``FuzzOracle/sameCommand(_:_:)`` does).
private func sameRequest(_ a: ControlRequest, _ b: ControlRequest) -> Bool {
  guard a.id == b.id else { return false }
  if case .player(let x) = a.kind, case .player(let y) = b.kind { return FuzzOracle.sameCommand(x, y) }
  return a.kind == b.kind
}
