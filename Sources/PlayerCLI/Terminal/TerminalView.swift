import Dispatch
import FoundationEssentials
import Futures
import Glibc
import PlayerCore
import SplayConsole

/// The live one-screen view of `splay play`: state, track, progress, volume, queue, pending command, keys.
///
/// The state line shows only confirmed state; a command in flight shows beside it as pending ("pausing…")
/// until its future settles. The progress bar interpolates between confirmations with the confirmed rate,
/// except from a command's sending until the next confirmed state: the server may not be playing any more
/// (a pause on its way, or a server that stopped answering), and the clock must not run past what it confirmed.
final class TerminalView: PlaybackView {
  private struct Screen {
    var state = PlayerState.initial
    /// Every command in flight, shown until it settles, and the clock they hold.
    var inFlight = CommandsInFlight()
    var notice: String?
    var ended = false
    /// The command whose deadline passed, until a state confirms what the server did after all.
    var timedOut: String?
    /// Files that could not be played: shown in the view, listed again once it closes.
    var skipped: [String] = []
    /// The terminal's size at the last frame: a change redraws from a clear screen.
    var size: (columns: Int, rows: Int) = (0, 0)
    /// The last frame written: the same frame again is not written.
    var frame = ""
    /// The `/` prompt while it is open.
    var search: SearchPrompt?
  }

  private let controller: PlayerController
  private let onQuit: @Sendable () -> Void
  private let screen = Lock(Screen())
  /// What `/` searches with, kept between prompts. Held while the prompt changes (a key, or tags learned), so
  /// that one change never overwrites another; the screen's lock is taken only inside it, and not for the search.
  private let finder = Lock(QueueSearch())
  /// The queue revision whose tags `/` last asked the library index for.
  private let tagsAsked = Lock<UInt64?>(nil)
  private let renderQueue = DispatchQueue(label: "splay.view")
  // Dispatch sources are not Sendable; the lock makes their few uses (start, cancel) safe from any thread.
  private let timer: Lock<any DispatchSourceTimer>
  private let signals: Lock<[any DispatchSourceSignal]>

  init(controller: PlayerController, onQuit: @escaping @Sendable () -> Void) {
    self.controller = controller
    self.onQuit = onQuit
    timer = Lock(DispatchSource.makeTimerSource(queue: renderQueue))
    // Not the render queue: a frame stuck writing to a terminal that is gone must not hold off SIGHUP's exit.
    // Not a global queue either (see SerialTaskExecutor).
    let signalQueue = DispatchQueue(label: "splay.view.signals")
    signals = Lock(
      [SIGINT, SIGTERM, SIGHUP, SIGWINCH].map { DispatchSource.makeSignalSource(signal: $0, queue: signalQueue) })
  }

  func begin() {
    RawTerminal.enter()
    signals.withLock { sources in
      for source in sources {
        let number = Int32(source.handle)
        signal(number, SIG_IGN)
        source.setEventHandler { [weak self] in
          guard let self else { return }
          switch number {
          case SIGWINCH: renderQueue.async { [weak self] in self?.render() }
          // The terminal is gone: restoring it could wait on a pty nobody drains, and nothing is left to show.
          case SIGHUP: _exit(129)
          default: interrupt(exitingWith: SignalExit.status(for: number))
          }
        }
        source.resume()
      }
    }
    KeyReader { [weak self] key in self?.handle(key) }.start()
    // One-shot, set again by each frame for when its clock or bar next moves (``render()``).
    timer.withLock { timer in
      timer.schedule(deadline: .now())
      timer.setEventHandler { [weak self] in self?.render() }
      timer.resume()
    }
  }

  func show(_ state: PlayerState) {
    screen.withLock { s in
      s.inFlight.received(state, at: Self.monotonicNow())
      if let command = s.timedOut, state.revision > s.state.revision {
        s.timedOut = nil
        s.notice = "\(command): the server confirmed it after the deadline"
      }
      s.state = state
    }
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
    // The view's line showed the last one only; the whole list stays on the terminal.
    for message in screen.withLock({ $0.skipped }) { Console.error(message) }
  }

  func report(_ message: String) {
    screen.withLock { $0.skipped.append(message) }
    renderQueue.async { [weak self] in self?.render() }
  }

  func notice(_ message: String) {
    screen.withLock { $0.notice = message }
    renderQueue.async { [weak self] in self?.render() }
  }

  /// Ctrl-C (a key in raw mode: 130) or SIGINT/SIGTERM (130, 143): the terminal back, the exit code that
  /// `--json` gives too (``SignalExit``). Not through `onQuit`: that ends `play` normally on another thread,
  /// which could exit 0 before this one exits.
  private func interrupt(exitingWith status: Int32 = SignalExit.status(for: SIGINT)) {
    RawTerminal.restore()
    SignalExit.runLastWords()
    for message in screen.withLock({ $0.skipped }) { Console.error(message) }
    exit(status)
  }

  /// Ctrl-Z: pauses first (a stopped process cannot confirm anything, and the server would play on into an
  /// underrun while the view said "playing"), gives the terminal back and stops; `fg` redraws.
  private func suspend() {
    let stop: @Sendable () -> Void = { [weak self] in
      guard let self else { return }
      renderQueue.async { [self] in
        RawTerminal.restore()
        signal(SIGTSTP, SIG_DFL)
        // Dispatch's threads block signals: unblocked on this one, the stop is delivered inside `raise`, which
        // returns only once the process is continued.
        var stop = sigset_t()
        var previous = sigset_t()
        sigemptyset(&stop)
        sigaddset(&stop, SIGTSTP)
        pthread_sigmask(SIG_UNBLOCK, &stop, &previous)
        raise(SIGTSTP)
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        // Continued (SIGCONT): raw mode again and a frame drawn from a clear screen.
        RawTerminal.enter()
        screen.withLock { $0.size = (0, 0) }
        render()
      }
    }
    // The pause settles within the deadline whatever the server does.
    if controller.state.status == .playing {
      controller.pause().whenComplete { _ in stop() }
    } else {
      stop()
    }
  }

  // MARK: Keys

  private func handle(_ key: Key) {
    if key != .interrupt, key != .suspend, let outcome = searching(key) {
      if case .play(let index) = outcome { send(.jump(toIndex: index), label: "track \(index + 1)…") }
      renderQueue.async { [weak self] in self?.render() }
      return
    }
    switch key {
    case .character(" "): send(.toggle, label: controller.state.status == .playing ? "pausing…" : "resuming…")
    case .left: send(.seek(.relative(-5)), label: "seeking −5 s…")
    case .right: send(.seek(.relative(5)), label: "seeking +5 s…")
    case .down: send(.seek(.relative(-60)), label: "seeking −60 s…")
    case .up: send(.seek(.relative(60)), label: "seeking +60 s…")
    case .character("+"), .character("="), .character("0"): send(.volume(.relative(5)), label: "volume +5…")
    case .character("-"), .character("_"), .character("9"): send(.volume(.relative(-5)), label: "volume −5…")
    case .character("m"): send(.mute(nil), label: controller.state.muted ? "unmuting…" : "muting…")
    case .character("r"):
      let mode = controller.state.repeatMode.cycled
      send(.repeatMode(mode), label: "repeat \(mode.rawValue)…")
    case .character("s"):
      let on = !controller.state.shuffle
      send(.shuffle(on), label: "shuffle \(on ? "on" : "off")…")
    case .character("n"), .character(">"): send(.next, label: "next track…")
    case .character("p"), .character("<"): previousOrRestart()
    case .character("q"), .character("Q"): onQuit()
    case .character("/"):
      let state = screen.withLock { s in
        s.search = SearchPrompt()
        return s.state
      }
      renderQueue.async { [weak self] in self?.render() }
      learnQueueTags(of: state)
    case .interrupt: interrupt()
    case .suspend: suspend()
    default: break
    }
  }

  /// Gives `key` to the `/` prompt when it is open, closing it when the key did; nil when it is not open.
  /// The search runs outside the screen's lock, which a new state takes on the controller's path: a long queue
  /// must not hold the player up.
  private func searching(_ key: Key) -> SearchPrompt.Outcome? {
    finder.withLock { search in
      let (prompt, state) = screen.withLock { ($0.search, $0.state) }
      guard var prompt else { return nil }
      let outcome = prompt.take(key, in: state, using: &search)
      screen.withLock { $0.search = outcome == .editing ? prompt : nil }
      return outcome
    }
  }

  /// Asks the library index, off the keys' thread and once per queue, for the tags of the queue's tracks: `/`
  /// then finds a track by its title, artist or album too, and the open prompt's matches are found again.
  private func learnQueueTags(of state: PlayerState) {
    let revision = state.queueRevision
    let asked = tagsAsked.withLock { asked in
      defer { asked = revision }
      return asked == revision
    }
    // A queue past a quarter of a million tracks is searched by paths: its paths alone are tens of megabytes.
    guard !asked, state.queue.count <= 250_000, LibraryProgram.indexExists() else { return }
    let paths = Array(state.queue)
    DispatchQueue(label: "splay.view.tags").async { [weak self] in
      let tags = LibraryProgram.tagText(of: paths)
      guard !tags.isEmpty, let self else { return }
      finder.withLock { search in
        search.learn(tags: tags)
        let (prompt, state) = screen.withLock { ($0.search, $0.state) }
        guard var prompt else { return }
        prompt.findAgain(in: state, using: &search)
        screen.withLock { if $0.search != nil { $0.search = prompt } }
      }
      renderQueue.async { [weak self] in self?.render() }
    }
  }

  /// `p`: early in a track the previous one, later this one from its start, as the state machine decides.
  private func previousOrRestart() {
    let command = controller.previousOrRestart(at: Self.monotonicNow())
    send(command, label: command == .previous ? "previous track…" : "restarting…")
  }

  private func send(_ command: PlayerCommand, label: String) {
    let id = screen.withLock { s in
      s.notice = nil
      s.timedOut = nil
      return s.inFlight.sent(label, state: s.state, at: Self.monotonicNow())
    }
    renderQueue.async { [weak self] in self?.render() }
    controller.send(command).whenComplete { [weak self] outcome in
      guard let self else { return }
      screen.withLock { s in
        var timedOut = false
        if case .failure(let error) = outcome {
          s.notice = "\(command.name): \(error.message)"
          // Unconfirmed either way after a timeout: the clock holds until the server says where it is.
          if case .timeout = error {
            s.timedOut = command.name
            timedOut = true
          }
        }
        s.inFlight.settled(id, state: s.state, at: Self.monotonicNow(), keepHolding: timedOut)
      }
      renderQueue.async { [weak self] in self?.render() }
    }
  }

  // MARK: Drawing

  private func render() {
    let (state, pending, notice, held, skipped) = screen.withLock {
      ($0.state, $0.inFlight.label, $0.search?.line(in: $0.state) ?? $0.notice, $0.inFlight.held, $0.skipped)
    }
    let size = Self.terminalSize()
    let position =
      held?.position ?? state.track.map { state.position.estimated(at: Self.monotonicNow(), limit: $0.duration) } ?? 0
    let layout = ScreenLayout(
      state: state, pending: pending, notice: notice, position: position, skipped: skipped, width: size.columns)
    scheduleNextFrame(layout, clockRuns: held == nil && state.status == .playing && state.position.rate > 0)
    // As many lines as the terminal has rows: a newline on the last row would scroll the frame away.
    let lines = layout.lines.prefix(size.rows)
    let resized = screen.withLock { s -> Bool in
      defer { s.size = size }
      return s.size != size
    }
    // Every frame is whole: each line is cleared to its end and everything below the last is erased, so a
    // frame shorter than the one before (a resize, a track without tags) leaves nothing stale behind.
    var frame = resized ? "\u{1B}[2J\u{1B}[H" : "\u{1B}[H"
    for (index, line) in lines.enumerated() {
      frame += line
      if DisplayWidth.columns(of: line) < size.columns { frame += "\u{1B}[K" }
      if index < lines.count - 1 { frame += "\r\n" }
    }
    frame += "\u{1B}[J"
    let changed = screen.withLock { s -> Bool in
      defer { s.frame = frame }
      return s.frame != frame
    }
    if changed { RawTerminal.write(frame) }
  }

  /// Draws again when the clock or the bar will have moved: about once a second while playing, never while
  /// paused, stopped or holding for a command (states and keys draw then). A fixed 100 ms tick woke the
  /// process and the terminal ten times a second, paused or not.
  private func scheduleNextFrame(_ layout: ScreenLayout, clockRuns: Bool) {
    // A position that the server plays only later holds until then.
    let hold = layout.state.position.secondsUntilItMoves(at: Self.monotonicNow())
    let wait = clockRuns ? layout.secondsUntilTheClockMoves.map { hold + $0 / layout.state.position.rate } : nil
    timer.withLock { timer in
      // A few milliseconds past the change, so that the estimate has crossed it when the frame is drawn.
      let deadline = wait.map { DispatchTime.now() + .nanoseconds(Int(($0 + 0.005) * 1e9)) } ?? .distantFuture
      timer.schedule(deadline: deadline, leeway: .milliseconds(5))
    }
  }

  /// Columns and rows of the terminal (80×24 when it does not say).
  static func terminalSize() -> (columns: Int, rows: Int) {
    var size = winsize()
    if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 {
      return (Int(size.ws_col), Int(size.ws_row))
    }
    return (80, 24)
  }

  static func monotonicNow() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
  }
}
