// The in-process PlayerCore benchmarks of issues 4 and 8: the cost of one command through the controller on
// the simulated output (beside the floor of a bare dispatch-queue round trip, measured in the same run) and
// splay's decoding speed on the 30 s FLAC fixture. The whole-process peers (`flac -d`, `sox`) are timed by
// Benchmarks/run-player.py, which runs this target; `make bench` / `make bench-quick` call it.
//
// Every benchmark measures a batch and is named "<row>/<contender>/<operations in the batch>", so the driver
// divides each figure by the operations that were actually measured.

import Benchmark
import Dispatch
import Foundation
import PlayerWorkloads

/// `make bench-quick` sets this to fit the whole run in under two minutes; the full run samples longer.
private let quick = ProcessInfo.processInfo.environment["SPLAY_BENCH_QUICK"] == "1"

/// The driver passes the fixture's absolute path, because the benchmark plugin chooses the working directory.
private let flacPath =
  ProcessInfo.processInfo.environment["SPLAY_BENCH_FLAC"]
  ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .appendingPathComponent("../../../fixtures/media/sweep-30s.flac").standardized.path

let benchmarks: @Sendable () -> Void = {
  // Explicit nanoseconds and no scaling factor: the exported figures are then raw nanoseconds per batch.
  let timed = Benchmark.Configuration(
    metrics: [.wallClock],
    timeUnits: .nanoseconds,
    warmupIterations: 3,
    maxDuration: quick ? .milliseconds(600) : .seconds(4),
    maxIterations: quick ? 40 : 1_000
  )
  let batch = CommandWorkload.batch
  let expected = CommandWorkload.expectedChecksum(count: batch)

  // A fresh controller per sample, loaded before the measurement starts and shut down after it ends, so
  // only the commands are timed and no sample inherits another's queue.
  Benchmark("Command/splay/\(batch)", configuration: timed) { benchmark in
    let controller = await CommandWorkload.loadedController()
    benchmark.startMeasurement()
    let total = await CommandWorkload.awaitingEach(controller, count: batch)
    benchmark.stopMeasurement()
    await CommandWorkload.shutdown(controller)
    expect(total, expected, "Command/splay")
  }

  Benchmark("Pipelined/splay/\(batch)", configuration: timed) { benchmark in
    let controller = await CommandWorkload.loadedController()
    benchmark.startMeasurement()
    let total = await CommandWorkload.pipelined(controller, count: batch)
    benchmark.stopMeasurement()
    await CommandWorkload.shutdown(controller)
    expect(total, expected, "Pipelined/splay")
  }

  // Same shape as the controller's own queue: a private serial queue at the default quality of service.
  let queue = DispatchQueue(label: "splay.bench.floor")
  Benchmark("Command/dispatch/\(batch)", configuration: timed) { benchmark in
    benchmark.startMeasurement()
    let total = await CommandWorkload.dispatchRoundTrips(on: queue, count: batch)
    benchmark.stopMeasurement()
    expect(total, expected, "Command/dispatch")
  }

  Benchmark("Pipelined/dispatch/\(batch)", configuration: timed) { benchmark in
    benchmark.startMeasurement()
    let total = await CommandWorkload.dispatchPipelined(on: queue, count: batch)
    benchmark.stopMeasurement()
    expect(total, expected, "Pipelined/dispatch")
  }

  // One sample decodes the whole file (opening it included, as a player must); tens of milliseconds each.
  let decoding = Benchmark.Configuration(
    metrics: [.wallClock],
    timeUnits: .nanoseconds,
    warmupIterations: 2,
    maxDuration: quick ? .seconds(3) : .seconds(15),
    maxIterations: quick ? 10 : 60
  )
  Benchmark("Decode/splay/1", configuration: decoding) { benchmark in
    let decoded: (frames: Int64, expected: Int64)
    benchmark.startMeasurement()
    do {
      let (frames, info) = try DecodeWorkload.decodeWhole(path: flacPath)
      decoded = (frames, info.frames)
    } catch {
      fatalError("Decode/splay: \(error)")
    }
    benchmark.stopMeasurement()
    expect(Int(decoded.frames), Int(decoded.expected), "Decode/splay (frames decoded)")
  }
}

/// Stops the run when a batch's futures did not all confirm what was asked: a figure from a loop whose
/// commands failed would be meaningless, and silently faster.
private func expect(_ actual: Int, _ expected: Int, _ workload: String) {
  precondition(actual == expected, "\(workload): checksum \(actual), expected \(expected)")
}
