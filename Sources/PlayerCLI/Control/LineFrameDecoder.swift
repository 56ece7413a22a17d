import NIOCore

/// Splits the byte stream into lines (without `\n`, and without a trailing `\r`), refusing lines longer than
/// the limit: such a line produces `.tooLong` once, and the connection is then closed by the handler.
struct LineFrameDecoder: ByteToMessageDecoder {
  enum Frame {
    case line(ByteBuffer)
    case tooLong
  }
  typealias InboundOut = Frame

  let maximumLength: Int
  private var scanned = 0
  private var failed = false

  init(maximumLength: Int) {
    self.maximumLength = maximumLength
  }

  mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
    guard !failed else {
      buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
      return .needMoreData
    }
    let view = buffer.readableBytesView
    if let newline = view.dropFirst(scanned).firstIndex(of: UInt8(ascii: "\n")) {
      let length = newline - view.startIndex
      scanned = 0
      guard length <= maximumLength else {
        failed = true
        context.fireChannelRead(wrapInboundOut(.tooLong))
        return .needMoreData
      }
      var line = buffer.readSlice(length: length)!
      buffer.moveReaderIndex(forwardBy: 1)
      if line.readableBytesView.last == UInt8(ascii: "\r") {
        line = line.getSlice(at: line.readerIndex, length: length - 1)!
      }
      context.fireChannelRead(wrapInboundOut(.line(line)))
      return .continue
    }
    scanned = view.count
    if view.count > maximumLength {
      failed = true
      context.fireChannelRead(wrapInboundOut(.tooLong))
    }
    return .needMoreData
  }

  mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
    -> DecodingState
  {
    // A last line without a newline is still a request.
    if buffer.readableBytes > 0, !failed, buffer.readableBytes <= maximumLength {
      let line = buffer.readSlice(length: buffer.readableBytes)!
      context.fireChannelRead(wrapInboundOut(.line(line)))
    }
    buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
    return .needMoreData
  }
}
