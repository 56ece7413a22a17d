import ControlProtocol
import Dispatch
import Futures
import NIOCore
import PlayerCore
import PlayerLibrary

/// One client of the control socket: decodes requests, forwards them to the controller, writes replies when
/// the futures settle and, when subscribed, state events.
///
/// Back-pressure: at most `maximumInFlight` requests of one client wait for the player at a time; beyond that
/// the handler stops reading from the socket until replies have gone out, so a client pipelining 10,000
/// requests is served in order without unbounded memory; reading also waits while the client leaves more than
/// the high-water mark of replies unread. A subscriber that stops reading is let go once its unsent lines
/// (events and replies) pass the channel's high-water mark (4 MiB): it is sent a last `limit-exceeded` line
/// after the events already queued, and the connection closes once that line is out, or after
/// ``drainGrace`` if the client never reads it. No event is dropped before that line, none is cut short.
final class ControlConnectionHandler: ChannelDuplexHandler {
  typealias InboundIn = LineFrameDecoder.Frame
  typealias InboundOut = Never
  typealias OutboundIn = Never
  typealias OutboundOut = ByteBuffer

  static let maximumInFlight = 256
  /// How long a subscriber let go for not reading may take to read what was queued before it is closed.
  static let drainGrace: TimeAmount = .seconds(10)

  private let hub: ControlHub
  private var inFlight = 0
  private var readHeld = false
  private var subscription: ControlHub.Subscription?
  private var counted = false
  /// The subscriber was let go for not reading: nothing more is queued, the connection closes.
  private var lettingGo = false
  /// A `load` or `enqueue` whose folders and playlists are being expanded off the event loop.
  private var expanding = false
  /// A server command (`subscribe`, `unsubscribe`, `quit`) waits for the replies before it to go out: it is
  /// answered at once otherwise, and would overtake them.
  private var awaitingReplies = false
  /// Requests read meanwhile: they run after it, in order, as if it had been a plain command.
  private var held: [ControlRequest] = []

  /// Whether requests read now must wait behind an expansion or a server command.
  private var holding: Bool { expanding || awaitingReplies }

  /// Why this peer is refused (another user, from SO_PEERCRED), or nil.
  private let refusal: String?

  init(hub: ControlHub, refusal: String? = nil) {
    self.hub = hub
    self.refusal = refusal
  }

  func channelActive(context: ChannelHandlerContext) {
    if let refusal {
      // Told why, then closed; never counted as a client, and nothing it sends is read.
      let message = ControlMessage.failure(id: nil, code: "permission-denied", message: refusal, error: nil)
      write(message, context: context).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    } else if hub.clientJoined() {
      counted = true
    } else {
      let message = ControlMessage.failure(
        id: nil, code: "limit-exceeded", message: "too many clients (the limit is \(hub.maximumClients)); closing",
        error: .limitExceeded(what: "clients", limit: hub.maximumClients))
      write(message, context: context).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
    context.fireChannelActive()
  }

  func channelInactive(context: ChannelHandlerContext) {
    subscription?.cancel()
    subscription = nil
    if counted { hub.clientLeft() }
    counted = false
    context.fireChannelInactive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard refusal == nil else { return }
    switch unwrapInboundIn(data) {
    case .tooLong:
      let message = ControlMessage.failure(
        id: nil, code: "line-too-long",
        message: "request longer than \(ControlRequest.maximumLineLength) bytes; closing",
        error: nil)
      write(message, context: context).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    case .line(let buffer):
      let bytes = buffer.readableBytesView
      guard !bytes.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) else { return }
      switch ControlRequest.decode(bytes) {
      case .failure(let error):
        write(.failure(id: error.id, code: error.code, message: error.message, error: nil), context: context)
      case .success(let request):
        if holding { held.append(request) } else { handle(request, context: context) }
      }
    }
  }

  func read(context: ChannelHandlerContext) {
    if mayRead(context) {
      context.read()
    } else {
      readHeld = true
    }
  }

  func channelWritabilityChanged(context: ChannelHandlerContext) {
    resumeReading(context)
    context.fireChannelWritabilityChanged()
  }

  /// Reading waits while too many requests wait for the player, and while the client leaves its replies
  /// unread (the channel is above its high-water mark). Without the second condition a client that writes
  /// and never reads made the server queue replies without bound: 300,000 status requests grew it by 170 MB.
  private func mayRead(_ context: ChannelHandlerContext) -> Bool {
    inFlight < Self.maximumInFlight && context.channel.isWritable
  }

  private func resumeReading(_ context: ChannelHandlerContext) {
    guard readHeld, mayRead(context) else { return }
    readHeld = false
    context.read()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    context.close(promise: nil)
  }

  private func handle(_ request: ControlRequest, context: ChannelHandlerContext) {
    if inFlight > 0, request.isAnsweredByTheServer {
      // Answered without the player: only once every earlier reply has gone out (``releaseHeld(_:)``).
      awaitingReplies = true
      held.insert(request, at: 0)
      return
    }
    switch request.kind {
    case .subscribe:
      if subscription == nil {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        subscription = hub.subscribe { state in
          eventLoop.execute {
            let (handler, context) = loopBound.value
            handler.deliver(state, context: context)
          }
        }
      }
      write(.success(id: request.id, state: hub.controller.state), context: context)
    case .unsubscribe:
      subscription?.cancel()
      subscription = nil
      write(.success(id: request.id, state: hub.controller.state), context: context)
    case .quit:
      write(.success(id: request.id, state: hub.controller.state), context: context).whenComplete { [hub] _ in
        hub.requestQuit()
      }
    case .queue(let offset, let count):
      // The state published last, as the replies before this one left it.
      write(
        .queue(id: request.id, page: QueuePage(of: hub.controller.state, offset: offset, count: count)),
        context: context)
    case .status:
      reply(when: hub.controller.refresh(), id: request.id, context: context)
    case .player(let command):
      if case .load(let paths) = command, TrackListExpander.needsExpansion(paths) {
        expandThenSend(command, id: request.id, context: context)
      } else if case .enqueue(let paths) = command, TrackListExpander.needsExpansion(paths) {
        expandThenSend(command, id: request.id, context: context)
      } else {
        reply(when: hub.controller.send(command), id: request.id, context: context)
      }
    }
  }

  /// Expands a `load` or `enqueue` of folders and playlists on another thread (walking ten thousand files
  /// takes a good part of a second, which the event loop's other clients must not wait for), then sends it.
  /// Counted as in flight meanwhile, so that reading pauses once enough requests are held behind it.
  private func expandThenSend(_ command: PlayerCommand, id: RequestID?, context: ChannelHandlerContext) {
    expanding = true
    inFlight += 1
    let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
    let (hub, eventLoop) = (self.hub, context.eventLoop)
    OffLoopQueue.run("splay.expand") {
      let expanded = TrackListExpander().expand(command)
      eventLoop.execute {
        let (handler, context) = loopBound.value
        handler.inFlight -= 1
        handler.expanding = false
        let future: Future<PlayerState, PlayerError>
        switch expanded.command {
        case .success(let command): future = hub.controller.send(command)
        case .failure(let error): future = .rejected(error)
        }
        handler.reply(when: future, id: id, skipped: expanded.skipped.map(\.message), context: context)
        handler.releaseHeld(context)
      }
    }
  }

  /// Handles the requests held behind an expansion or a server command, in order, until one holds the rest
  /// again; then reads on.
  private func releaseHeld(_ context: ChannelHandlerContext) {
    if awaitingReplies, inFlight == 0 { awaitingReplies = false }
    while !holding, !held.isEmpty {
      handle(held.removeFirst(), context: context)
    }
    resumeReading(context)
  }

  /// Replies when `future` settles; the reply is written on the channel's event loop: at once when the future
  /// settles there (`splay serve` has the controller take up the server's answers on that loop) and it is the
  /// only request of this client waiting, otherwise behind the replies already handed to the loop.
  private func reply(
    when future: Future<PlayerState, PlayerError>, id: RequestID?, skipped: [String] = [],
    context: ChannelHandlerContext
  ) {
    inFlight += 1
    let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
    let eventLoop = context.eventLoop
    future.whenComplete { outcome in
      let message: ControlMessage
      switch outcome {
      case .success(let state): message = .success(id: id, state: state, skipped: skipped)
      case .failure(let error): message = .failure(id: id, code: error.code, message: error.message, error: error)
      case .cancelled:
        message = .failure(id: id, code: "cancelled", message: PlayerError.cancelled.message, error: .cancelled)
      }
      let send: @Sendable () -> Void = {
        let (handler, context) = loopBound.value
        handler.inFlight -= 1
        handler.write(message, context: context)
        handler.releaseHeld(context)
      }
      // At once only when no earlier reply of this client can still be waiting in the loop's queue (a future
      // that settled before this callback was registered runs it here, on the loop, possibly ahead of them).
      if eventLoop.inEventLoop, loopBound.value.0.inFlight == 1 { send() } else { eventLoop.execute(send) }
    }
  }

  private func deliver(_ state: PlayerState, context: ChannelHandlerContext) {
    guard context.channel.isActive, !lettingGo else { return }
    guard context.channel.isWritable else { return letGo(context) }
    write(.event(state), context: context)
  }

  /// Stops a subscriber that does not read: a closing channel drops its unsent data, which would cut the
  /// client's stream mid-line, so the queued lines and a last one saying why go out first.
  private func letGo(_ context: ChannelHandlerContext) {
    lettingGo = true
    subscription?.cancel()
    subscription = nil
    let message = ControlMessage.failure(
      id: nil, code: "limit-exceeded",
      message: "more than 4 MiB of events unread; closing", error: .limitExceeded(what: "unread events", limit: 4 << 20)
    )
    let channel = context.channel
    write(message, context: context).whenComplete { _ in channel.close(promise: nil) }
    context.eventLoop.scheduleTask(in: Self.drainGrace) { channel.close(promise: nil) }
  }

  @discardableResult
  private func write(_ message: ControlMessage, context: ChannelHandlerContext) -> EventLoopFuture<Void> {
    let line = message.lineBytes()
    var buffer = context.channel.allocator.buffer(capacity: line.count)
    buffer.writeBytes(line)
    let promise = context.eventLoop.makePromise(of: Void.self)
    context.writeAndFlush(wrapOutboundOut(buffer), promise: promise)
    return promise.futureResult
  }
}

extension ControlRequest {
  /// `subscribe`, `unsubscribe`, `quit` and `queue`: the server answers them itself, not the player.
  fileprivate var isAnsweredByTheServer: Bool {
    switch kind {
    case .subscribe, .unsubscribe, .quit, .queue: true
    case .status, .player: false
    }
  }
}
