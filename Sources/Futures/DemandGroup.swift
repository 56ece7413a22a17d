/// The upstream of a future that waits on several others (`all`, `zip`, `race`, ...).
///
/// Withdrawing from the group withdraws once from each member.
@usableFromInline
final class DemandGroup: DemandSource {
  private let members: [any DemandSource]

  @usableFromInline
  init(_ members: [any DemandSource]) {
    self.members = members
  }

  @usableFromInline
  func withdrawDemand(into work: inout [any DemandSource]) {
    work.append(contentsOf: members)
  }
}
