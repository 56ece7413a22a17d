/// Which confirmed states the MPRIS object may leave unannounced when several arrive at once.
///
/// Every state it announces is a confirmed one; under a storm (a volume key held down, a scroll wheel on a
/// status bar's volume, 16,000 changes a second through the socket) it need not announce each. A state is
/// skipped only when the one confirmed right after it, already waiting, differs from it in nothing but the volume
/// and the position: a client then misses an intermediate volume and a position it could not have shown, never a
/// change of status, track, queue or mode.
public enum MPRISCoalescing {
  /// Whether `state` may go unannounced because `next` (confirmed right after it) supersedes it.
  public static func canSkip(_ state: PlayerState, before next: PlayerState) -> Bool {
    var probe = next
    probe.volume = state.volume
    probe.position = state.position
    return probe.sameContent(as: state)
  }
}
