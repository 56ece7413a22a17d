// The in-process Futures benchmarks of issue 8: W1–W4 and the memory row, for splay, the bare Mutex floor and
// the peers, in one run. W5 runs in Sources/FuturesProbe, one process per contender, because some peers
// overflow the stack on a long chain. Run through `make bench` / `make bench-quick` (Benchmarks/run-futures.py).
//
// Every benchmark measures a batch and is named "<workload>/<contender>/<operations in the batch>", so the
// driver divides each figure by the operations that were actually measured.

import Benchmark
import Foundation
import FuturePeers

/// `make bench-quick` sets this to fit the whole run in under two minutes; the full run samples longer.
private let quick = ProcessInfo.processInfo.environment["SPLAY_BENCH_QUICK"] == "1"

let benchmarks: @Sendable () -> Void = {
  for name in ContenderName.allCases {
    register(name.type, as: name.rawValue)
  }
}

private func register<Contender: FutureContender>(_: Contender.Type, as name: String) {
  // Explicit nanoseconds and no scaling factor: the exported figures are then raw nanoseconds per batch.
  let timed = Benchmark.Configuration(
    metrics: [.wallClock],
    timeUnits: .nanoseconds,
    warmupIterations: 3,
    maxDuration: quick ? .milliseconds(250) : .seconds(3),
    maxIterations: quick ? 25 : 2_000
  )

  let w1 = WorkloadSize.createObserveResolve
  Benchmark("W1/\(name)/\(w1)", configuration: timed) { benchmark in
    let contender = Contender()
    benchmark.startMeasurement()
    let total = contender.createObserveResolve(count: w1)
    benchmark.stopMeasurement()
    expect(total, w1 * (w1 - 1) / 2, "W1", name)
  }

  let w2 = WorkloadSize.mapChainOnResolved
  Benchmark("W2/\(name)/\(w2)", configuration: timed) { benchmark in
    let contender = Contender()
    benchmark.startMeasurement()
    let total = contender.mapChainOnResolved(length: w2)
    benchmark.stopMeasurement()
    expect(total, w2, "W2", name)
  }

  let w3 = WorkloadSize.callbacksOnOne
  Benchmark("W3/\(name)/\(w3)", configuration: timed) { benchmark in
    let contender = Contender()
    benchmark.startMeasurement()
    let total = contender.callbacksOnOne(count: w3)
    benchmark.stopMeasurement()
    expect(total, w3, "W3", name)
  }

  // Only contenders whose futures can be shared between two threads have a W4.
  let w4 = WorkloadSize.race
  if Contender().prepareRace(count: 0, delivered: DeliveryCounter()) != nil {
    // A million futures per sample: a handful of samples, and the setup of each stays out of the measurement.
    var raced = timed
    raced.warmupIterations = 1
    raced.maxDuration = quick ? .seconds(2) : .seconds(15)
    raced.maxIterations = quick ? 2 : 15
    Benchmark("W4/\(name)/\(w4)", configuration: raced) { benchmark in
      let delivered = DeliveryCounter()
      guard let round = Contender().prepareRace(count: w4, delivered: delivered) else { return }
      benchmark.startMeasurement()
      runRace(round, count: w4)
      benchmark.stopMeasurement()
      expect(delivered.value, w4, "W4 (callbacks delivered)", name)
    }
  }

  // Bytes and allocations requested from malloc, per batch, while the batch's futures are all pending; the
  // storage that holds them is allocated before the measurement starts, so only the futures are counted.
  let pendingCount = WorkloadSize.pending
  let memory = Benchmark.Configuration(
    metrics: [.mallocBytesCount, .mallocCountTotal],
    timeUnits: .nanoseconds,
    units: [.mallocBytesCount: .count, .mallocCountTotal: .count],
    warmupIterations: 1,
    maxDuration: quick ? .milliseconds(500) : .seconds(5),
    maxIterations: quick ? 3 : 20
  )
  Benchmark("Memory/\(name)/\(pendingCount)", configuration: memory) { benchmark in
    let contender = Contender()
    let observer = Tally()
    let storage = UnsafeMutablePointer<Contender.Pending>.allocate(capacity: pendingCount)
    defer { storage.deallocate() }
    benchmark.startMeasurement()
    for index in 0..<pendingCount {
      (storage + index).initialize(to: contender.makePending(observer: observer))
    }
    for index in 0..<pendingCount {
      contender.waitUntilParked(storage[index])
    }
    benchmark.stopMeasurement()
    for index in 0..<pendingCount {
      contender.settle(storage[index])
    }
    storage.deinitialize(count: pendingCount)
    expect(observer.total, pendingCount, "Memory (callbacks run on settling)", name)
  }
}

/// Stops the run when a contender's callbacks did not all see the expected values: a figure from a workload
/// that lost callbacks would be meaningless, and silently faster.
private func expect(_ actual: Int, _ expected: Int, _ workload: String, _ contender: String) {
  precondition(actual == expected, "\(workload) \(contender): callbacks saw \(actual), expected \(expected)")
}
