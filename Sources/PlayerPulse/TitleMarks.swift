import PlayerCore

/// A live stream's title changes decoded ahead of the audio, each at its place in the track, until the server's
/// clock reaches it: the title is published when its audio is heard, not when it is downloaded (a station's
/// stream runs seconds ahead in the buffers).
struct TitleMarks {
  private var marks: [(seconds: Double, title: String)] = []

  /// Takes `changes` (frames of the track at `sampleRate`) in order.
  mutating func add(_ changes: [TitleChange], sampleRate: Int) {
    guard sampleRate > 0 else { return }
    marks += changes.map { (Double($0.frame) / Double(sampleRate), $0.title) }
  }

  /// The titles whose audio `position` (seconds into the track) has reached, oldest first; they are taken.
  mutating func heard(by position: Double) -> [String] {
    let count = marks.prefix { $0.seconds <= position }.count
    defer { marks.removeFirst(count) }
    return marks.prefix(count).map(\.title)
  }

  /// Seconds from `position` until the next title is heard; nil when none waits.
  func wait(from position: Double) -> Double? {
    marks.first.map { max(0, $0.seconds - position) }
  }

  /// Whether no title waits.
  var isEmpty: Bool { marks.isEmpty }

  /// Forgets every mark (a seek or a flush: the audio they were placed in will not play).
  mutating func removeAll() {
    marks.removeAll()
  }
}
