import CFFmpeg
import PlayerCore

#if canImport(Glibc)
  import Glibc
#endif

/// What a stream opened from a URL says besides its audio: whether it is live, the station's name, and the ICY
/// titles with the byte of the audio each begins at.
extension FFmpegStream {
  /// A URL's context, which ``FFmpegDecoder/abandon()`` reaches from another thread while a read waits (the
  /// context lives as long as the stream, which the decoder holds).
  struct Connection: @unchecked Sendable {
    let io: UnsafeMutablePointer<AVIOContext>
  }

  /// The connection of a URL; nil for a file.
  var connection: Connection? {
    guard source == .url, let io = format.pointee.pb else { return nil }
    return Connection(io: io)
  }

  /// Whether this is a live stream: a URL the server will not serve in ranges, whose length FFmpeg does not know.
  var isLive: Bool {
    guard source == .url, let io = format.pointee.pb else { return false }
    return splay_ffmpeg_url_seekable(io) == 0 && declaredFrames == nil
  }

  /// The ICY headers the server sent (`icy-name`, `icy-genre`…), names lowercased.
  var icyHeaders: [String: String] {
    guard source == .url, let io = format.pointee.pb, let text = splay_ffmpeg_url_headers(io) else { return [:] }
    defer { free(text) }
    var headers: [String: String] = [:]
    for line in String(cString: text).split(whereSeparator: \.isNewline) {
      guard let colon = line.firstIndex(of: ":") else { continue }
      let value = line[line.index(after: colon)...].trimmingCharacters(in: " \t")
      if !value.isEmpty { headers[line[..<colon].lowercased()] = value }
    }
    return headers
  }

  /// The titles of the ICY metadata blocks received since the last call, each with the byte of the audio it
  /// begins at (as `AVPacket.pos` counts).
  func takeTitles() -> [(offset: Int64, title: String)] {
    guard source == .url, let io = format.pointee.pb else { return [] }
    var titles: [(Int64, String)] = []
    var offset: Int64 = 0
    while let text = splay_ffmpeg_url_take_metadata(io, &offset) {
      let block = UnsafeBufferPointer(
        start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), count: strlen(text))
      if let title = ICYMetadata.streamTitle(in: block) { titles.append((offset, title)) }
      free(text)
    }
    return titles
  }

  /// What happened to the connection since the last call, said as a person would ("the connection dropped (End
  /// of file); reconnected"), once the read that reconnected returned: nil when it has not dropped. `gaveUp`:
  /// the read ended the stream, so the reconnecting failed.
  func takeReconnectNotice(gaveUp: Bool) -> String? {
    guard source == .url, let io = format.pointee.pb else { return nil }
    var attempts: Int32 = 0
    guard let text = splay_ffmpeg_url_take_notice(io, &attempts) else { return nil }
    defer { free(text) }
    return Self.reconnectNotice(String(cString: text), attempts: Int(attempts), gaveUp: gaveUp)
  }

  /// FFmpeg's first `Will reconnect at 1234 in 0 second(s), error=End of file.` of a drop as
  /// ``takeReconnectNotice(gaveUp:)`` says it.
  static func reconnectNotice(_ message: String, attempts: Int, gaveUp: Bool) -> String {
    var reason = "the connection dropped"
    if let error = message.firstRange(of: "error=")?.upperBound {
      let text = message[error...].trimmingCharacters(in: ". \n")
      if !text.isEmpty { reason += " (\(text))" }
    }
    let tries = attempts == 1 ? "1 attempt" : "\(attempts) attempts"
    return reason
      + (gaveUp ? "; could not reconnect (\(tries))" : "; reconnected" + (attempts > 1 ? " (\(tries))" : ""))
  }

  /// The error for a URL that could not be opened: FFmpeg's code said as a person would.
  static func streamFailure(_ url: String, _ code: Int32, timeout: Double) -> PlayerError {
    let detail: String
    switch -code {
    case ETIMEDOUT, EAGAIN: detail = "no answer within \(timeout) s"
    case ECONNREFUSED: detail = "connection refused"
    case EHOSTUNREACH, ENETUNREACH: detail = "no route to the host"
    // FFmpeg's answer when the host name does not resolve.
    case EIO: detail = "cannot reach the server (is the host name right, and the network up?)"
    default: detail = text(code)
    }
    return .streamFailed(url: url, detail: detail)
  }
}

extension StringProtocol {
  /// The text without `characters` at either end.
  func trimmingCharacters(in characters: String) -> String {
    var text = self[...]
    while let first = text.first, characters.contains(first) { text = text.dropFirst() }
    while let last = text.last, characters.contains(last) { text = text.dropLast() }
    return String(text)
  }
}
