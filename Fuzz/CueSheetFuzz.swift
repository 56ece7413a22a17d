// libFuzzer target: the cue sheet reader (CueSheetParser), on any bytes. Besides "no crash, no hang, no huge
// allocation", it checks what CueTrackDecoder relies on: every track starts at or after 0, a track ends after it
// starts, and the tracks of one file start in increasing order.

@_cdecl("LLVMFuzzerTestOneInput")
public func cueSheetFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let sheet = CueSheetParser.parse(Array(UnsafeBufferPointer(start: data, count: size)))
  for (index, track) in sheet.tracks.enumerated() {
    let start = track.start.frame(sampleRate: 384_000)
    precondition(start >= 0, "a track starts at or after the file's start, and its frame does not overflow")
    if let end = sheet.end(ofTrack: index) {
      precondition(end.frame(sampleRate: 384_000) > start, "a track ends after it starts")
    }
  }
  precondition(sheet.problems.allSatisfy { $0.line >= 1 && $0.line <= size + 1 }, "a problem names a line")
  return 0
}
