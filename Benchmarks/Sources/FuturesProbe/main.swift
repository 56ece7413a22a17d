// Runs W5 (a chain of `map` steps built on a pending future, then resolved) for one contender in this process,
// so that a contender that overflows the stack ends only this process, and says so.
//
//   FuturesProbe <contender> [length] [repeats]
//
// Prints one line of JSON: {"contender": ..., "length": ..., "ns_per_step": [one figure per repeat]}.
// Exits with 86 after writing "stack overflow" to stderr when the chain overflows the main thread's stack,
// and with 65 when the end of the chain saw the wrong value.

import FuturePeers

#if canImport(Glibc)
  import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count >= 2, let contender = ContenderName(rawValue: arguments[1]) else {
  let names = ContenderName.allCases.map(\.rawValue).joined(separator: "|")
  print("usage: FuturesProbe <\(names)> [length] [repeats]")
  exit(64)
}
let length = arguments.count > 2 ? Int(arguments[2]) ?? WorkloadSize.chainOnPending : WorkloadSize.chainOnPending
let repeats = arguments.count > 3 ? max(1, Int(arguments[3]) ?? 1) : 1

StackOverflowReporter.install()
runChain(contender.type, name: contender.rawValue, length: length, repeats: repeats)

/// Builds and resolves the chain `repeats` times on the main thread, whose stack the reporter watches.
func runChain<Contender: FutureContender>(_: Contender.Type, name: String, length: Int, repeats: Int) {
  let contender = Contender()
  let clock = ContinuousClock()
  var perStep: [String] = []
  for _ in 0..<repeats {
    var end = 0
    let elapsed = clock.measure { end = contender.chainOnPending(length: length) }
    guard end == length else {
      print("{\"contender\": \"\(name)\", \"error\": \"the chain ended with \(end), expected \(length)\"}")
      exit(65)
    }
    let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
    perStep.append(String(nanoseconds / Double(length)))
  }
  print("{\"contender\": \"\(name)\", \"length\": \(length), \"ns_per_step\": [\(perStep.joined(separator: ", "))]}")
}
