import CPulseAudio
import Futures
import PlayerCore

/// A connection to the server of its own, beside the output's, that reads what the server says of a sink and of
/// splay's stream and records a sink's monitor: the independent witness a script's server checks need
/// (`expect audio`, `check always state-matches-server`). Its queries never touch the output's context.
public final class PulseProbe: @unchecked Sendable {
  /// What the server says of itself and of a sink.
  public struct SinkFacts: Equatable, Sendable {
    /// The server's name (`pulseaudio`, or `PulseAudio (on PipeWire 1.0.5)`).
    public var serverName: String
    /// The sink's name.
    public var sink: String
    /// The sink's monitor source.
    public var monitor: String
    /// The rate the sink plays at (on PipeWire, the graph's).
    public var rate: Int
    /// The sink's channels.
    public var channels: Int
    /// Whether the sink may rewind (PulseAudio, unless the null sink was loaded with `norewinds=1`): its monitor
    /// then keeps audio that a rewind replaced.
    public var rewinds: Bool
  }

  /// A sink input as the server reports it.
  public struct SinkInput: Equatable, Sendable {
    /// Volume in percent, the channels' average (as `pactl` shows it).
    public var volume: Int
    /// The mute flag.
    public var muted: Bool
    /// Whether it is corked.
    public var corked: Bool
    /// The name of the sink it plays to.
    public var sink: String
  }

  let loop: ThreadedMainloop
  let connection: PulseConnection
  /// Settles the probe's futures off the mainloop thread, where a continuation may query again.
  let delivery = OutputDelivery(label: "splay.pulse.probe")

  /// A probe of `server` (nil: libpulse's default); it connects on its first query.
  public init(server: String?, timeout: Double = 2) {
    loop = ThreadedMainloop()
    connection = PulseConnection(loop: loop, server: server, timeout: timeout)
    loop.locked {
      // A lost connection is let go: the next query connects again.
      connection.hooks.lost = { [connection] error in connection.disconnect(error: error) }
    }
  }

  deinit {
    loop.lockedFromAnyThread {
      let error = PlayerError.outputLost(detail: "the probe was closed")
      for waiter in connection.disconnect(error: error) { waiter(.failure(error)) }
    }
  }

  /// What settles a query's future, off the mainloop thread.
  struct Settle<T: Sendable> {
    let resolver: Future<T, PlayerError>.Resolver
    let delivery: OutputDelivery
    /// The probe, held until the answer: one let go while its query runs would close the connection under it.
    let probe: PulseProbe

    func resolve(_ value: T) { delivery.handOff { resolver.resolve(value) } }
    func reject(_ error: PlayerError) { delivery.handOff { resolver.reject(error) } }
  }

  /// Runs `body` with the context once connected (mainloop lock held), or fails.
  func withContext<T: Sendable>(_ body: @escaping (OpaquePointer, Settle<T>) -> Void) -> Future<T, PlayerError> {
    let (future, resolver) = Future<T, PlayerError>.pending()
    let settle = Settle(resolver: resolver, delivery: delivery, probe: self)
    loop.locked {
      connection.whenConnected { [connection] result in
        switch result {
        case .failure(let error): settle.reject(error)
        case .success:
          guard let context = connection.context else { return settle.reject(.outputLost(detail: "not connected")) }
          body(context, settle)
        }
      }
    }
    return future
  }

  /// The server's facts and those of `sink` (nil: the server's default sink).
  public func facts(sink: String?) -> Future<SinkFacts, PlayerError> {
    withContext { context, resolver in
      ServerInfoQuery.run(context) { server in
        let name = sink ?? server.defaultSink
        SinkQuery.run(context, name: name) { sink in
          guard let sink else { return resolver.reject(.outputFailed(operation: "probe", detail: "no sink \(name)")) }
          ModuleQuery.run(context, index: sink.module) { module in
            let isPipeWire = server.name?.contains("PipeWire") == true
            let noRewinds = module?.name == "module-null-sink" && module?.argument.contains("norewinds=1") == true
            // PipeWire's sinks say the rate they were made with, while its graph, and every sink in it, runs at
            // the default rate.
            let rate = isPipeWire && server.rate > 0 ? server.rate : sink.rate
            resolver.resolve(
              SinkFacts(
                serverName: server.name ?? "?", sink: sink.name, monitor: sink.monitor, rate: rate,
                channels: sink.channels, rewinds: !isPipeWire && !noRewinds))
          }
        }
      }
    }
  }

  /// The sink input `index` as the server reports it; nil when there is none.
  public func sinkInput(_ index: UInt32) -> Future<SinkInput?, PlayerError> {
    withContext { context, resolver in
      SinkInputQuery.run(context, index: index) { input in
        guard let input else { return resolver.resolve(nil) }
        SinkQuery.run(context, index: input.sink) { sink in
          resolver.resolve(
            SinkInput(
              volume: input.volume, muted: input.muted, corked: input.corked, sink: sink?.name ?? "#\(input.sink)"))
        }
      }
    }
  }

  /// Whether the sink `name` is suspended (plays nothing, and its monitor delivers nothing).
  public func isSuspended(_ name: String) -> Future<Bool, PlayerError> {
    withContext { context, resolver in
      SinkQuery.run(context, name: name) { sink in resolver.resolve(sink?.suspended ?? false) }
    }
  }

  /// Records the first channel of `facts`' monitor at the sink's own rate, from now on.
  public func record(_ facts: SinkFacts, keeping seconds: Double = 120) -> Future<MonitorTap, PlayerError> {
    withContext { [self] context, resolver in
      let tap = MonitorTap(probe: self, rate: facts.rate, channels: facts.channels, keeping: seconds)
      tap.connect(context, source: facts.monitor) { result in
        switch result {
        case .success: resolver.resolve(tap)
        case .failure(let error): resolver.reject(error)
        }
      }
    }
  }
}
