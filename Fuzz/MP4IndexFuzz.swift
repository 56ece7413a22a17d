// libFuzzer target: splay's MP4 index reader (MP4Box, MP4AudioTrack, MP4Tags, AACFormat), on the bytes of a
// file's boxes. Besides "no crash, no hang, no huge allocation", it checks what AACStream relies on: a track
// that AACFormat accepts has an offset for every size, durations for every packet, and a delay within them.

import PlayerCore

@_cdecl("LLVMFuzzerTestOneInput")
public func mp4IndexFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  guard let boxes = try? MP4Box.sequence(in: MP4Bytes(bytes)) else { return 0 }
  for moov in boxes where moov.type == MP4Box.type("moov") {
    let tags = MP4Tags(moov: moov)
    guard let track = try? MP4AudioTrack.first(in: moov) else { continue }
    precondition(track.offsets.count == track.sizes.count, "an offset for every sample")
    guard let format = AACFormat(track: track, tags: tags) else { continue }
    let total = Int64(track.sizes.count) * AACFormat.packetFrames
    precondition(format.delay >= 0 && format.delay <= total, "the delay lies within the packets")
    precondition(format.frames >= 0 && format.frames <= total, "the length lies within the packets")
  }
  return 0
}
