import PlayerCore

/// Builds a script's steps from its lines, one line's words at a time: the lines that structure a script
/// (`let`, `repeat N {` … `}`, `expect-failure`) act here, the others become steps (``ScriptParser``).
struct ScriptBuilder {
  /// The most steps a script may unroll to (its `repeat` blocks repeated).
  static let maximumSteps = 1_000_000
  /// The most times one `repeat` block may repeat.
  static let maximumRepeat = 1_000_000

  private(set) var steps: [PlaybackScript.Step] = []
  private var variables: ScriptVariables
  /// The open `repeat` blocks, innermost last: how many times, where its steps begin, its line.
  private var blocks: [(count: Int, start: Int, line: Int)] = []
  private var expectedFailure: PlaybackScript.ExpectedFailure?
  private var invariants: [ScriptInvariant] = []
  /// The included script whose lines are being taken (nil: the script run), and how many `repeat` blocks
  /// were open when it was included: it may not close those.
  private var including: (file: String?, blocksOpen: Int) = (nil, 0)
  /// The path an `include` line just named, with its column, for the parser to read.
  private var pendingInclude: (path: String, column: Int)?

  /// A builder whose words see `variables` defined.
  init(variables: ScriptVariables) {
    self.variables = variables
  }

  /// Takes line `line` (`text` as written), already split into `tokens`.
  mutating func take(_ tokens: [CommandTokenizer.Token], line: Int, text: String) throws(CommandParseError) {
    let tokens = try variables.substitute(tokens)
    guard let first = tokens.first else { return }
    switch first.text.lowercased() {
    case "let":
      guard tokens.count == 4, tokens[2].text == "=" else {
        throw CommandParseError(column: first.column, message: "expected 'let NAME = VALUE'")
      }
      guard ScriptVariables.isName(tokens[1].text) else {
        throw CommandParseError(
          column: tokens[1].column,
          message: "'\(tokens[1].text.prefix(40))' is not a variable's name (letters, digits and _, not first a digit)")
      }
      variables.define(tokens[1].text, as: tokens[3].text)
    // `repeat off|all|one` is the player's command; `repeat N {` opens a block.
    case "repeat" where tokens.last?.text == "{":
      guard tokens.count == 3 else {
        throw CommandParseError(column: first.column, message: "expected 'repeat N {'")
      }
      guard let count = Int(tokens[1].text), (1...Self.maximumRepeat).contains(count) else {
        throw CommandParseError(
          column: tokens[1].column,
          message: "expected a count from 1 to \(Self.maximumRepeat), found '\(tokens[1].text.prefix(40))'")
      }
      blocks.append((count, steps.count, line))
    case "include":
      guard tokens.count == 2 else {
        throw CommandParseError(column: first.column, message: "expected 'include FILE'")
      }
      pendingInclude = (tokens[1].text, tokens[1].column)
    case "}":
      guard tokens.count == 1, blocks.count > including.blocksOpen, let block = blocks.popLast() else {
        throw CommandParseError(column: first.column, message: "'}' closes no 'repeat N {'")
      }
      let body = Array(steps[block.start...])
      guard steps.count + body.count * (block.count - 1) <= Self.maximumSteps else {
        throw CommandParseError(
          column: first.column, message: "the script repeats to more than \(Self.maximumSteps) steps")
      }
      for _ in 1..<block.count { steps.append(contentsOf: body) }
    case "check":
      let names = ScriptInvariant.allCases.map(\.rawValue).joined(separator: ", ")
      guard tokens.count == 3, tokens[1].text.lowercased() == "always" else {
        throw CommandParseError(column: first.column, message: "expected 'check always RULE' (\(names))")
      }
      guard let invariant = ScriptInvariant(rawValue: tokens[2].text.lowercased()) else {
        throw CommandParseError(
          column: tokens[2].column, message: "unknown rule '\(tokens[2].text.prefix(40))' (expected one of: \(names))")
      }
      if !invariants.contains(invariant) { invariants.append(invariant) }
    case "expect-failure":
      guard including.file == nil else {
        throw CommandParseError(column: first.column, message: "expect-failure belongs in the script that is run")
      }
      guard expectedFailure == nil else {
        throw CommandParseError(column: first.column, message: "a script has one expect-failure at most")
      }
      guard tokens.count <= 2 else {
        throw CommandParseError(
          column: tokens[2].column, message: "expected 'expect-failure [\"TEXT OF THE FAILURE\"]'")
      }
      expectedFailure = PlaybackScript.ExpectedFailure(line: line, text: tokens.count == 2 ? tokens[1].text : nil)
    default:
      guard steps.count < Self.maximumSteps else {
        throw CommandParseError(column: 0, message: "the script has more than \(Self.maximumSteps) steps")
      }
      steps.append(
        PlaybackScript.Step(
          line: line, action: try ScriptParser.parseAction(tokens), text: text, file: including.file))
    }
  }

  /// The path the last line named with `include`, once: the parser reads that script's lines next.
  mutating func takeInclude() -> (path: String, column: Int)? {
    defer { pendingInclude = nil }
    return pendingInclude
  }

  /// The lines of the included script `file` come next; returns what to hand back to ``endInclude(_:name:)``.
  mutating func beginInclude(_ file: String) -> (file: String?, blocksOpen: Int) {
    defer { including = (file, blocks.count) }
    return including
  }

  /// The included script `name` ended: a `repeat` block it left open is an error at its line; its steps from
  /// `firstStep` on take the paths they name from `directory`.
  mutating func endInclude(
    _ outer: (file: String?, blocksOpen: Int), name: String, firstStep: Int, directory: String
  ) throws(ScriptParser.Failure) {
    if blocks.count > including.blocksOpen, let open = blocks.last {
      throw ScriptParser.Failure(
        script: name, line: open.line, error: CommandParseError(column: 0, message: "'repeat' has no closing '}'"))
    }
    for index in firstStep..<steps.count where steps[index].file == name {
      steps[index] = steps[index].resolvingPaths(relativeTo: directory)
    }
    including = outer
  }

  /// The script, once every line was taken; a `repeat` block left open is an error at its line.
  func finish(name: String) throws(ScriptParser.Failure) -> PlaybackScript {
    if let open = blocks.last {
      throw ScriptParser.Failure(
        script: name, line: open.line, error: CommandParseError(column: 0, message: "'repeat' has no closing '}'"))
    }
    var script = PlaybackScript(name: name, steps: steps, expectedFailure: expectedFailure)
    script.invariants = invariants
    return script
  }
}
