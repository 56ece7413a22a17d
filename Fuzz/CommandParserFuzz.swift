// libFuzzer target: the text form of a command (CommandParser, CommandTokenizer).
//
// Besides "no crash", it checks the promise PlayerCommand's documentation makes: a command that parses prints
// (``PlayerCommand/description``) as text that parses back to the same command. Positions are compared to a
// nanosecond, the precision the printed form keeps.

@_cdecl("LLVMFuzzerTestOneInput")
public func commandParserFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  guard let command = try? CommandParser.parse(text) else { return 0 }
  let printed = command.description
  do {
    let again = try CommandParser.parse(printed)
    guard FuzzOracle.sameCommand(command, again) else {
      fatalError("round trip changed the command: \(command) -> \(printed) -> \(again)")
    }
  } catch {
    fatalError("the printed form does not parse: \(printed): \(error)")
  }
  return 0
}
