// Times splay's commands through the controller API on the real PulseAudio output: the in-process
// counterpart of the socket and mpv figures in Benchmarks/run-audio.py.
//
//   ControlProbe <file> <gap-ms> <seek-seconds>...
//
// Loads <file> on a `PulseOutput` (the server comes from PULSE_SERVER), plays it, then runs one round per
// seek position: pause, play, seek to the position, volume 40 or 60 (alternately), waiting <gap-ms>
// milliseconds after each command settles. Each figure is the time from the call to the moment the
// returned future settles (taken in a callback on the settling thread, so the awaiting task's wake-up is not
// counted). Prints one JSON object: {"pause": [ns, ...], "play": [...], "seek": [...], "volume": [...],
// "failures": n}. Exits with 65 when the file does not load and play.

import Futures
import PlayerCore
import PlayerDecoding
import PlayerPulse
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// `CLOCK_MONOTONIC` in nanoseconds.
func now() -> UInt64 {
  var spec = timespec()
  clock_gettime(CLOCK_MONOTONIC, &spec)
  return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

/// Sends `command`, waits until it settles and returns the nanoseconds from the call to the settlement, or
/// nil when the command did not succeed.
func timed(_ command: PlayerCommand, on controller: PlayerController) async -> UInt64? {
  let settledAt = Atomic<UInt64>(0)
  let started = now()
  let future = controller.send(command).whenComplete { _ in settledAt.store(now(), ordering: .releasing) }
  guard case .success = await future.settled else { return nil }
  return settledAt.load(ordering: .acquiring) - started
}

let arguments = CommandLine.arguments
guard arguments.count >= 4, let gap = UInt64(arguments[2]) else {
  print("usage: ControlProbe <file> <gap-ms> <seek-seconds>...")
  exit(64)
}
let positions = arguments[3...].compactMap(Double.init)
let controller = PlayerController(output: PulseOutput(), decoders: StandardDecoderFactory())
guard case .success = await controller.load([arguments[1]]).settled,
  case .success = await controller.play().settled
else {
  print("{\"error\": \"\(arguments[1]) did not load and play\"}")
  exit(65)
}

var times: [String: [UInt64]] = ["pause": [], "play": [], "seek": [], "volume": []]
var failures = 0
for (round, position) in positions.enumerated() {
  let commands: [PlayerCommand] = [
    .pause, .play, .seek(.absolute(position)), .volume(.absolute(round % 2 == 0 ? 40 : 60)),
  ]
  for command in commands {
    if let nanoseconds = await timed(command, on: controller) {
      times[command.name, default: []].append(nanoseconds)
    } else {
      failures += 1
    }
    try? await Task.sleep(for: .milliseconds(gap))
  }
}
_ = await controller.shutdown().settled
let fields = times.keys.sorted().map { name in
  let values = times[name, default: []].map(String.init).joined(separator: ", ")
  return "\"\(name)\": [\(values)]"
}
print("{\(fields.joined(separator: ", ")), \"failures\": \(failures)}")
