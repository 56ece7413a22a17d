/// Reads the metadata block an Icecast or Shoutcast server puts into a stream (`StreamTitle='Artist - Song';`).
enum ICYMetadata {
  /// The `StreamTitle` of `block`, as UTF-8, or Latin-1 when it is not valid UTF-8 (older Shoutcast servers);
  /// nil when the block has none or it is empty.
  static func streamTitle(in block: UnsafeBufferPointer<UInt8>) -> String? {
    let key = Array("StreamTitle='".utf8)
    guard let start = firstIndex(of: key[...], in: block[...]) else { return nil }
    let valueStart = start + key.count
    // The value ends at the quote before `;`: a title may hold apostrophes ("Don't Stop").
    var end = valueStart
    var found: Int?
    while end < block.count {
      if block[end] == UInt8(ascii: "'"), end + 1 == block.count || block[end + 1] == UInt8(ascii: ";") {
        found = end
        break
      }
      end += 1
    }
    let bytes = Array(block[valueStart..<(found ?? block.count)])
    let title = String(validating: bytes, as: UTF8.self) ?? String(bytes.map { Character(Unicode.Scalar($0)) })
    let trimmed = title.trimmingCharacters(in: " \t\0")
    return trimmed.isEmpty ? nil : trimmed
  }

  private static func firstIndex(of needle: ArraySlice<UInt8>, in haystack: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
    guard needle.count <= haystack.count else { return nil }
    for start in haystack.startIndex...(haystack.endIndex - needle.count)
    where haystack[start..<(start + needle.count)].elementsEqual(needle) {
      return start
    }
    return nil
  }
}
