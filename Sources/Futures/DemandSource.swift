/// Something a derived future waits on, and can stop waiting on.
///
/// This is the upstream half of cancellation propagation (see "Cancellation" in docs/futures.md):
/// a future counts the derived futures and awaiting tasks that wait on it (its *demand*); when one of
/// them stops waiting before the future settles, it withdraws its demand, and a withdrawal that brings
/// the count to zero cancels the future, which then withdraws from its own upstream in turn.
@usableFromInline
protocol DemandSource: AnyObject, Sendable {
  /// Withdraws one unit of demand. If that cancels the receiver, its own upstream goes into `work`,
  /// so a long chain is walked by the loop in ``withdrawDemand()`` rather than by recursion.
  func withdrawDemand(into work: inout [any DemandSource])
}

extension DemandSource {
  /// Withdraws one unit of demand, and keeps going upstream while withdrawals cancel, in a loop rather than
  /// by recursion, so cancelling the end of a 1,000,000-step chain reaches its start without deep stacks.
  @usableFromInline
  func withdrawDemand() {
    var work: [any DemandSource] = [self]
    while let next = work.popLast() {
      next.withdrawDemand(into: &work)
    }
  }
}
