import CPulseAudio
import Synchronization

/// A query's answer handler across libpulse's C callbacks, until the list ends or libpulse ends the operation
/// without an answer (it cancels those of a context that goes, and never calls their callbacks then). Touched on
/// the mainloop thread or under its lock.
private class PendingAnswer: @unchecked Sendable {
  /// Answers with nothing: the server never will.
  func giveUp() {}

  /// The queries waiting for an answer, by the number their userdata carries. Not a pointer to the handler:
  /// libpulse can end an operation again from inside its answer (the answer let go of the last reference to a
  /// probe, which closed the connection), and a number already taken is simply not found.
  private static let waiting = Mutex<(next: UInt, answers: [UInt: PendingAnswer])>((1, [:]))

  /// Starts a query (`begin` returns libpulse's operation) with `answer` waiting for it; false, with `answer`
  /// let go, when libpulse refused to start it.
  static func start(_ answer: PendingAnswer, _ begin: (UnsafeMutableRawPointer) -> OpaquePointer?) -> Bool {
    let key = waiting.withLock { waiting in
      defer { waiting.next += 1 }
      waiting.answers[waiting.next] = answer
      return waiting.next
    }
    let userdata = UnsafeMutableRawPointer(bitPattern: key)!
    guard let operation = begin(userdata) else {
      _ = take(userdata)
      return false
    }
    // Done or cancelled: an answer still waiting gets nothing.
    pa_operation_set_state_callback(
      operation,
      { operation, userdata in
        guard let operation, pa_operation_get_state(operation) != PA_OPERATION_RUNNING else { return }
        PendingAnswer.take(userdata)?.giveUp()
      }, userdata)
    pa_operation_unref(operation)
    return true
  }

  /// The answer waiting under `userdata`, left waiting (a list's items arrive one by one).
  static func find<T>(_ userdata: UnsafeMutableRawPointer?, of _: T.Type) -> Answer<T>? {
    let key = UInt(bitPattern: userdata)
    return waiting.withLock { $0.answers[key] } as? Answer<T>
  }

  /// The answer waiting under `userdata`, no longer waiting.
  static func take(_ userdata: UnsafeMutableRawPointer?) -> PendingAnswer? {
    let key = UInt(bitPattern: userdata)
    return waiting.withLock { $0.answers.removeValue(forKey: key) }
  }
}

/// The answer handler of a query that answers `T`, and the items of a list so far.
private final class Answer<T>: PendingAnswer, @unchecked Sendable {
  let body: (T) -> Void
  let nothing: T
  var item: T?
  init(_ body: @escaping (T) -> Void, nothing: T) {
    self.body = body
    self.nothing = nothing
  }
  override func giveUp() { body(nothing) }

  /// Answers with the items so far; the list ended.
  static func finish(_ userdata: UnsafeMutableRawPointer?) {
    guard let answer = PendingAnswer.take(userdata) as? Answer<T> else { return }
    answer.body(answer.item ?? answer.nothing)
  }
}

/// `pa_context_get_server_info`: the server's name, default sink and default rate.
enum ServerInfoQuery {
  struct Server {
    /// Nil when the server did not say.
    var name: String?
    var defaultSink = ""
    /// The default sample spec's rate: on PipeWire, the rate of the graph every sink runs at.
    var rate = 0
  }

  static func run(_ context: OpaquePointer, _ done: @escaping (Server) -> Void) {
    let started = PendingAnswer.start(Answer<Server>(done, nothing: Server())) { userdata in
      pa_context_get_server_info(
        context,
        { _, info, userdata in
          guard let answer = PendingAnswer.take(userdata) as? Answer<Server> else { return }
          var server = Server()
          if let info = info?.pointee {
            server.name = info.server_name.map { String(cString: $0) }
            server.defaultSink = info.default_sink_name.map { String(cString: $0) } ?? ""
            server.rate = Int(info.sample_spec.rate)
          }
          answer.body(server)
        }, userdata)
    }
    if !started { done(Server()) }
  }
}

/// `pa_context_get_sink_info_by_name` / `_by_index`: a sink's name, monitor, format and module.
enum SinkQuery {
  struct Sink {
    var name: String
    var monitor: String
    var rate: Int
    var channels: Int
    var module: UInt32
    var suspended: Bool
  }

  private typealias Callback =
    @convention(c) (
      OpaquePointer?, UnsafePointer<pa_sink_info>?, Int32, UnsafeMutableRawPointer?
    ) -> Void

  private static let callback: Callback = { _, info, eol, userdata in
    let answer = PendingAnswer.find(userdata, of: Sink?.self)
    if eol == 0, let info {
      let sink = info.pointee
      answer?.item = Sink(
        name: String(cString: sink.name), monitor: sink.monitor_source_name.map { String(cString: $0) } ?? "",
        rate: Int(sink.sample_spec.rate), channels: Int(sink.sample_spec.channels), module: sink.owner_module,
        suspended: sink.state == PA_SINK_SUSPENDED)
      return
    }
    Answer<Sink?>.finish(userdata)
  }

  static func run(_ context: OpaquePointer, name: String, _ done: @escaping (Sink?) -> Void) {
    start(done) { pa_context_get_sink_info_by_name(context, name, callback, $0) }
  }

  static func run(_ context: OpaquePointer, index: UInt32, _ done: @escaping (Sink?) -> Void) {
    start(done) { pa_context_get_sink_info_by_index(context, index, callback, $0) }
  }

  private static func start(_ done: @escaping (Sink?) -> Void, _ begin: (UnsafeMutableRawPointer) -> OpaquePointer?) {
    if !PendingAnswer.start(Answer<Sink?>(done, nothing: nil), begin) { done(nil) }
  }
}

/// `pa_context_get_module_info`: a module's name and arguments.
enum ModuleQuery {
  struct Module {
    var name: String
    var argument: String
  }

  static func run(_ context: OpaquePointer, index: UInt32, _ done: @escaping (Module?) -> Void) {
    guard index != UInt32.max else { return done(nil) }
    let started = PendingAnswer.start(Answer<Module?>(done, nothing: nil)) { userdata in
      pa_context_get_module_info(
        context, index,
        { _, info, eol, userdata in
          let answer = PendingAnswer.find(userdata, of: Module?.self)
          if eol == 0, let info {
            answer?.item = Module(
              name: String(cString: info.pointee.name),
              argument: info.pointee.argument.map { String(cString: $0) } ?? "")
            return
          }
          Answer<Module?>.finish(userdata)
        }, userdata)
    }
    if !started { done(nil) }
  }
}

/// `pa_context_get_sink_input_info`: a stream's volume, mute flag, cork and sink.
enum SinkInputQuery {
  struct Input {
    var volume: Int
    var muted: Bool
    var corked: Bool
    var sink: UInt32
  }

  static func run(_ context: OpaquePointer, index: UInt32, _ done: @escaping (Input?) -> Void) {
    let started = PendingAnswer.start(Answer<Input?>(done, nothing: nil)) { userdata in
      pa_context_get_sink_input_info(
        context, index,
        { _, info, eol, userdata in
          let answer = PendingAnswer.find(userdata, of: Input?.self)
          if eol == 0, let info {
            var volume = info.pointee.volume
            answer?.item = Input(
              volume: VolumeControl.percent(pa_cvolume_avg(&volume)), muted: info.pointee.mute != 0,
              corked: info.pointee.corked != 0, sink: info.pointee.sink)
            return
          }
          Answer<Input?>.finish(userdata)
        }, userdata)
    }
    if !started { done(nil) }
  }
}
