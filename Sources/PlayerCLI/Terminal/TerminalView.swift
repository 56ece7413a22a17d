import Dispatch
import FoundationEssentials
import Futures
import Glibc
import PlayerCore
import Synchronization

/// The live one-screen view of `splay play`: state, track, progress, volume, queue, pending command, keys.
///
/// The state line shows only confirmed state; a command in flight shows beside it as pending ("pausing…")
/// until its future settles. The progress bar interpolates between confirmations with the confirmed rate.
final class TerminalView: PlaybackView {
  private struct Screen {
    var state = PlayerState.initial
    var pending: String?
    var notice: String?
    var ended = false
  }

  private let controller: PlayerController
  private let onQuit: @Sendable () -> Void
  private let screen = Mutex(Screen())
  private let renderQueue = DispatchQueue(label: "splay.view")
  // Dispatch sources are not Sendable; the lock makes their few uses (start, cancel) safe from any thread.
  private let timer: Mutex<any DispatchSourceTimer>
  private let signals: Mutex<[any DispatchSourceSignal]>

  init(controller: PlayerController, onQuit: @escaping @Sendable () -> Void) {
    self.controller = controller
    self.onQuit = onQuit
    timer = Mutex(DispatchSource.makeTimerSource(queue: renderQueue))
    signals = Mutex([SIGINT, SIGTERM, SIGHUP].map { DispatchSource.makeSignalSource(signal: $0, queue: .global()) })
  }

  func begin() {
    RawTerminal.enter()
    signals.withLock { sources in
      for source in sources {
        signal(Int32(source.handle), SIG_IGN)
        source.setEventHandler { [onQuit] in
          RawTerminal.restore()
          onQuit()
          exit(130)
        }
        source.resume()
      }
    }
    KeyReader { [weak self] key in self?.handle(key) }.start()
    timer.withLock { timer in
      timer.schedule(deadline: .now(), repeating: .milliseconds(100))
      timer.setEventHandler { [weak self] in self?.render() }
      timer.resume()
    }
  }

  func show(_ state: PlayerState) {
    screen.withLock { $0.state = state }
    renderQueue.async { [weak self] in self?.render() }
  }

  func end() {
    let first = screen.withLock { s -> Bool in
      defer { s.ended = true }
      return !s.ended
    }
    guard first else { return }
    timer.withLock { $0.cancel() }
    renderQueue.sync { render() }
    RawTerminal.restore()
  }

  // MARK: Keys

  private func handle(_ key: Key) {
    switch key {
    case .character(" "): send(.toggle, label: controller.state.status == .playing ? "pausing…" : "resuming…")
    case .left: send(.seek(.relative(-5)), label: "seeking −5 s…")
    case .right: send(.seek(.relative(5)), label: "seeking +5 s…")
    case .down: send(.seek(.relative(-60)), label: "seeking −60 s…")
    case .up: send(.seek(.relative(60)), label: "seeking +60 s…")
    case .character("+"), .character("="): send(.volume(.relative(5)), label: "volume +5…")
    case .character("-"), .character("_"): send(.volume(.relative(-5)), label: "volume −5…")
    case .character("n"): send(.next, label: "next track…")
    case .character("p"): send(.previous, label: "previous track…")
    case .character("q"), .character("Q"), .interrupt: onQuit()
    default: break
    }
  }

  private func send(_ command: PlayerCommand, label: String) {
    screen.withLock {
      $0.pending = label
      $0.notice = nil
    }
    renderQueue.async { [weak self] in self?.render() }
    controller.send(command).always { [weak self] outcome in
      guard let self else { return }
      screen.withLock { s in
        s.pending = nil
        if case .failure(let error) = outcome { s.notice = "\(command.name): \(error.message)" }
      }
      renderQueue.async { [weak self] in self?.render() }
    }
  }

  // MARK: Drawing

  private func render() {
    let (state, pending, notice) = screen.withLock { ($0.state, $0.pending, $0.notice) }
    let width = Self.terminalWidth()
    var lines: [String] = []
    let status = state.status.name + (pending.map { "  (\($0))" } ?? "")
    lines.append("splay — \(status)")
    if let track = state.track {
      var who = track.displayTitle
      if let artist = track.artist { who += " — \(artist)" }
      lines.append(who)
      lines.append(track.path)
      let now = Self.monotonicNow()
      let position = state.position.estimated(at: now, limit: track.duration)
      let times = " \(clockTime(position, millis: false)) / \(clockTime(track.duration, millis: false))"
      let barWidth = max(10, min(width, 100) - times.count - 2)
      let filled = track.duration > 0 ? Int((position / track.duration * Double(barWidth)).rounded(.down)) : 0
      let bar =
        String(repeating: "=", count: min(filled, barWidth)) + String(repeating: "-", count: max(0, barWidth - filled))
      lines.append("[\(bar)]" + times)
    } else {
      lines.append("(nothing loaded)")
      lines.append("")
      lines.append("")
    }
    let queue = state.index.map { "track \($0 + 1)/\(state.queue.count)" } ?? "queue empty"
    lines.append("volume \(state.volume)%   \(queue)")
    lines.append(notice ?? "")
    lines.append("space pause/resume  ←/→ seek ∓5 s  ↓/↑ ∓60 s  +/- volume  n/p next/previous  q quit")
    var frame = "\u{1B}[H"
    for line in lines { frame += String(line.prefix(width)) + "\u{1B}[K\r\n" }
    RawTerminal.write(frame)
  }

  static func terminalWidth() -> Int {
    var size = winsize()
    if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
    return 80
  }

  static func monotonicNow() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
  }
}
