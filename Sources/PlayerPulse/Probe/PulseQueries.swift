import CPulseAudio

/// Holds a query's answer handler across libpulse's C callback (retained until the list ends).
private final class Answer<T> {
  let body: (T) -> Void
  var item: T?
  init(_ body: @escaping (T) -> Void) { self.body = body }
}

/// `pa_context_get_server_info`: the server's name, default sink and default rate.
enum ServerInfoQuery {
  struct Server {
    var name = "?"
    var defaultSink = ""
    /// The default sample spec's rate: on PipeWire, the rate of the graph every sink runs at.
    var rate = 0
  }

  static func run(_ context: OpaquePointer, _ done: @escaping (Server) -> Void) {
    let answer = Answer<Server>(done)
    let userdata = Unmanaged.passRetained(answer).toOpaque()
    let operation = pa_context_get_server_info(
      context,
      { _, info, userdata in
        let answer = Unmanaged<Answer<Server>>.fromOpaque(userdata!).takeRetainedValue()
        var server = Server()
        if let info = info?.pointee {
          server.name = info.server_name.map { String(cString: $0) } ?? "?"
          server.defaultSink = info.default_sink_name.map { String(cString: $0) } ?? ""
          server.rate = Int(info.sample_spec.rate)
        }
        answer.body(server)
      }, userdata)
    guard let operation else {
      Unmanaged<Answer<Server>>.fromOpaque(userdata).release()
      return done(Server())
    }
    pa_operation_unref(operation)
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
    let answer = Unmanaged<Answer<Sink?>>.fromOpaque(userdata!)
    if eol == 0, let info {
      let sink = info.pointee
      answer.takeUnretainedValue().item = Sink(
        name: String(cString: sink.name), monitor: sink.monitor_source_name.map { String(cString: $0) } ?? "",
        rate: Int(sink.sample_spec.rate), channels: Int(sink.sample_spec.channels), module: sink.owner_module,
        suspended: sink.state == PA_SINK_SUSPENDED)
      return
    }
    let done = answer.takeRetainedValue()
    done.body(done.item ?? nil)
  }

  static func run(_ context: OpaquePointer, name: String, _ done: @escaping (Sink?) -> Void) {
    start(done) { pa_context_get_sink_info_by_name(context, name, callback, $0) }
  }

  static func run(_ context: OpaquePointer, index: UInt32, _ done: @escaping (Sink?) -> Void) {
    start(done) { pa_context_get_sink_info_by_index(context, index, callback, $0) }
  }

  private static func start(_ done: @escaping (Sink?) -> Void, _ begin: (UnsafeMutableRawPointer) -> OpaquePointer?) {
    let userdata = Unmanaged.passRetained(Answer<Sink?>(done)).toOpaque()
    guard let operation = begin(userdata) else {
      Unmanaged<Answer<Sink?>>.fromOpaque(userdata).release()
      return done(nil)
    }
    pa_operation_unref(operation)
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
    let userdata = Unmanaged.passRetained(Answer<Module?>(done)).toOpaque()
    let operation = pa_context_get_module_info(
      context, index,
      { _, info, eol, userdata in
        let answer = Unmanaged<Answer<Module?>>.fromOpaque(userdata!)
        if eol == 0, let info {
          answer.takeUnretainedValue().item = Module(
            name: String(cString: info.pointee.name), argument: info.pointee.argument.map { String(cString: $0) } ?? "")
          return
        }
        let done = answer.takeRetainedValue()
        done.body(done.item ?? nil)
      }, userdata)
    guard let operation else {
      Unmanaged<Answer<Module?>>.fromOpaque(userdata).release()
      return done(nil)
    }
    pa_operation_unref(operation)
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
    let userdata = Unmanaged.passRetained(Answer<Input?>(done)).toOpaque()
    let operation = pa_context_get_sink_input_info(
      context, index,
      { _, info, eol, userdata in
        let answer = Unmanaged<Answer<Input?>>.fromOpaque(userdata!)
        if eol == 0, let info {
          var volume = info.pointee.volume
          answer.takeUnretainedValue().item = Input(
            volume: VolumeControl.percent(pa_cvolume_avg(&volume)), muted: info.pointee.mute != 0,
            corked: info.pointee.corked != 0, sink: info.pointee.sink)
          return
        }
        let done = answer.takeRetainedValue()
        done.body(done.item ?? nil)
      }, userdata)
    guard let operation else {
      Unmanaged<Answer<Input?>>.fromOpaque(userdata).release()
      return done(nil)
    }
    pa_operation_unref(operation)
  }
}
