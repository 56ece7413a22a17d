// Decodes one file to float with splay's decoder and exits: the whole-process counterpart of `flac -d` and
// `sox` for the decoding row, so that process start-up is paid by splay as it is by the peers.
//
//   DecodeProbe <file>
//
// Prints one line of JSON: {"frames": ..., "expected": ..., "seconds_of_audio": ...}. Exits with 65 when
// fewer frames were decoded than the file declares, and with 66 when it cannot be decoded at all.

import PlayerWorkloads

#if canImport(Glibc)
  import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
  print("usage: DecodeProbe <file>")
  exit(64)
}
do {
  let (frames, info) = try DecodeWorkload.decodeWhole(path: arguments[1])
  print("{\"frames\": \(frames), \"expected\": \(info.frames), \"seconds_of_audio\": \(info.duration)}")
  exit(frames == info.frames ? 0 : 65)
} catch {
  print("{\"error\": \"\(error)\"}")
  exit(66)
}
