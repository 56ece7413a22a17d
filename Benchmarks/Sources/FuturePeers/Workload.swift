/// The sizes of the workloads of issue 8, shared by the benchmarks and the probe so that both measure the
/// same thing; the benchmark names carry them too, so the driver divides by what actually ran.
public enum WorkloadSize {
  /// W1: futures created, observed and resolved per measured batch.
  public static let createObserveResolve = 1_000
  /// W2: `map` steps per chain on a resolved future.
  public static let mapChainOnResolved = 1_000
  /// W3: callbacks on the one future.
  public static let callbacksOnOne = 100_000
  /// W4: futures raced over by the registering and the resolving thread.
  public static let race = 1_000_000
  /// W5: `map` steps in the chain built on a pending future.
  public static let chainOnPending = 1_000_000
  /// Memory: pending futures, each with one callback, kept alive at once.
  public static let pending = 100_000
}
