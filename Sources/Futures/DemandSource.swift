/// Something a derived future waits on, and can stop waiting on.
///
/// This is the upstream half of cancellation propagation (see "Cancellation" in docs/futures.md):
/// a future counts the derived futures and awaiting tasks that wait on it (its *demand*); when one of
/// them stops waiting before the future settles, it withdraws its demand, and a withdrawal that brings
/// the count to zero cancels the future, which then withdraws from its own upstream in turn.
protocol DemandSource: AnyObject, Sendable {
  /// Withdraws one unit of demand. If that cancels the receiver, its own upstream goes into `work`,
  /// so a long chain is walked by the loop in ``Demand/withdraw(from:)`` rather than by recursion.
  func withdrawDemand(into work: inout [any DemandSource])
}

/// Walks cancellation up a graph of futures without recursion.
enum Demand {
  /// Withdraws one unit of demand from `source`, and keeps going upstream while withdrawals cancel.
  static func withdraw(from source: any DemandSource) {
    var work: [any DemandSource] = [source]
    while let next = work.popLast() {
      next.withdrawDemand(into: &work)
    }
  }
}

/// The upstream of a future that waits on several others (`all`, `zip`, `race`, ...).
///
/// Withdrawing from the group withdraws once from each member.
final class DemandGroup: DemandSource {
  private let members: [any DemandSource]

  init(_ members: [any DemandSource]) {
    self.members = members
  }

  func withdrawDemand(into work: inout [any DemandSource]) {
    work.append(contentsOf: members)
  }
}
