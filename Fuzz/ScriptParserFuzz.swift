// libFuzzer target: playback scripts (ScriptParser, on top of the command parser).
//
// Besides "no crash", a parse error must name a line of the script (1 up to its line count) and a column within
// that line, because users jump to SCRIPT:LINE:COLUMN in their editor.

@_cdecl("LLVMFuzzerTestOneInput")
public func scriptParserFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  // Lines as the parser sees them: split on the newline byte, columns counted in Unicode scalars.
  let lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map {
    Substring($0).unicodeScalars.count
  }
  do {
    let script = try ScriptParser.parse(text, name: "fuzz.splay")
    for step in script.steps where !(1...lines.count).contains(step.line) {
      fatalError("step on line \(step.line) of a \(lines.count)-line script")
    }
  } catch {
    guard (1...lines.count).contains(error.line) else {
      fatalError("error on line \(error.line) of a \(lines.count)-line script: \(error)")
    }
    if error.error.column > lines[error.line - 1] {
      fatalError("error column \(error.error.column) beyond the line's \(lines[error.line - 1]) scalars")
    }
  }
  return 0
}
