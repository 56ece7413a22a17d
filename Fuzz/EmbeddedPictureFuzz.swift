// libFuzzer target: the picture readers of EmbeddedPicture (ID3v2 tags, FLAC PICTURE blocks, MP4 covr items,
// Vorbis/Opus comment headers).
// Besides "no crash, no hang, no huge allocation", a picture found is never larger than the input and always
// starts with the signature its extension names.

import PlayerCore

@_cdecl("LLVMFuzzerTestOneInput")
public func embeddedPictureFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  var found: [EmbeddedPicture] = []
  if let picture = EmbeddedPicture.fromID3(bytes) { found.append(picture) }
  if let (_, picture) = EmbeddedPicture.flacPicture(MP4Bytes(bytes)) { found.append(picture) }
  if let picture = OggPicture.fromCommentHeader(bytes) { found.append(picture) }
  if let boxes = try? MP4Box.sequence(in: MP4Bytes(bytes)) {
    for moov in boxes where moov.type == MP4Box.type("moov") {
      if let picture = EmbeddedPicture.fromMP4(moov: moov) { found.append(picture) }
    }
  }
  for picture in found {
    // Base64 makes a picture in a comment a third larger than its bytes, never smaller.
    precondition(picture.bytes.count <= size, "a picture comes from the input")
    precondition(EmbeddedPicture(image: picture.bytes)?.fileExtension == picture.fileExtension, "an image")
  }
  return 0
}
