import Futures
import NIOCore
import PlayerCore

/// One client of the control socket: decodes requests, forwards them to the controller, writes replies when
/// the futures settle and, when subscribed, state events.
///
/// Back-pressure: at most `maximumInFlight` requests of one client wait for the player at a time; beyond that
/// the handler stops reading from the socket until replies have gone out, so a client pipelining 10,000
/// requests is served in order without unbounded memory; reading also waits while the client leaves more than
/// the high-water mark of replies unread. A subscriber that stops reading is disconnected once
/// its unsent events exceed the channel's high-water mark for too long.
final class ControlConnectionHandler: ChannelDuplexHandler {
  typealias InboundIn = LineFrameDecoder.Frame
  typealias InboundOut = Never
  typealias OutboundIn = Never
  typealias OutboundOut = ByteBuffer

  static let maximumInFlight = 256

  private let hub: ControlHub
  private var inFlight = 0
  private var readHeld = false
  private var subscription: ControlHub.Subscription?
  private var counted = false

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
        handle(request, context: context)
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
    case .status:
      reply(when: hub.controller.refresh(), id: request.id, context: context)
    case .player(let command):
      reply(when: hub.controller.send(command), id: request.id, context: context)
    }
  }

  /// Replies when `future` settles; the reply is written on the channel's event loop: at once when the future
  /// settles there (`splay serve` has the controller take up the server's answers on that loop) and it is the
  /// only request of this client waiting, otherwise behind the replies already handed to the loop.
  private func reply(when future: Future<PlayerState, PlayerError>, id: RequestID?, context: ChannelHandlerContext) {
    inFlight += 1
    let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
    let eventLoop = context.eventLoop
    future.always { outcome in
      let message: ControlMessage
      switch outcome {
      case .success(let state): message = .success(id: id, state: state)
      case .failure(let error): message = .failure(id: id, code: error.code, message: error.message, error: error)
      case .cancelled:
        message = .failure(id: id, code: "cancelled", message: PlayerError.cancelled.message, error: .cancelled)
      }
      let send: @Sendable () -> Void = {
        let (handler, context) = loopBound.value
        handler.inFlight -= 1
        handler.write(message, context: context)
        handler.resumeReading(context)
      }
      // At once only when no earlier reply of this client can still be waiting in the loop's queue (a future
      // that settled before this callback was registered runs it here, on the loop, possibly ahead of them).
      if eventLoop.inEventLoop, loopBound.value.0.inFlight == 1 { send() } else { eventLoop.execute(send) }
    }
  }

  private func deliver(_ state: PlayerState, context: ChannelHandlerContext) {
    guard context.channel.isActive else { return }
    guard context.channel.isWritable else {
      context.close(promise: nil)
      return
    }
    write(.event(state), context: context)
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
