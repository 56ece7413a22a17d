import CFFmpeg
import PlayerCore

#if canImport(Glibc)
  import Glibc
#endif

/// What a stream opened from a URL says besides its audio: whether it is live, the station's name, and the ICY
/// titles with the byte of the audio each begins at.
extension FFmpegStream {
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

  /// FFmpeg's last word on reconnecting this stream since the last call, said as a person would ("the
  /// connection dropped (End of file); reconnecting in 1 s"); nil when it has not dropped.
  func takeReconnectNotice() -> String? {
    guard source == .url, let io = format.pointee.pb, let text = splay_ffmpeg_url_take_notice(io) else { return nil }
    defer { free(text) }
    return Self.reconnectNotice(String(cString: text))
  }

  /// `Will reconnect at 1234 in 1 second(s), error=End of file.` as ``takeReconnectNotice()`` says it.
  static func reconnectNotice(_ message: String) -> String {
    var seconds: Substring = "?"
    if let after = message.firstRange(of: " in ")?.upperBound {
      seconds = message[after...].prefix { $0.isNumber }
    }
    var reason = "the connection dropped"
    if let error = message.firstRange(of: "error=")?.upperBound {
      let text = message[error...].trimmingCharacters(in: ". \n")
      if !text.isEmpty { reason += " (\(text))" }
    }
    return "\(reason); reconnecting in \(seconds) s"
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
