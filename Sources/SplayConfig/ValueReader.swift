import TOMLKit

/// Checks one key's value and says what is wrong with it, naming the key and its line.
struct ValueReader {
  let path: String
  let key: String
  let line: Int
  let value: any TOMLValueConvertible

  private func failure(_ message: String) -> ConfigError {
    ConfigError(path: path, line: line, message: message)
  }

  /// "KEY must be EXPECTED, found WHAT-IT-IS".
  private func wrong(_ expected: String) -> ConfigError {
    failure("\(key) must be \(expected), found \(Self.describe(value))")
  }

  func choice(of allowed: [String]) throws(ConfigError) -> ConfigValue<String> {
    let expected = allowed.map { "\"\($0)\"" }.joined(separator: " or ")
    guard let string = value.string, allowed.contains(string) else { throw wrong(expected) }
    return ConfigValue(value: string, line: line)
  }

  func nonEmptyString() throws(ConfigError) -> ConfigValue<String> {
    guard let string = value.string, !string.isEmpty else { throw wrong("a non-empty string") }
    return ConfigValue(value: string, line: line)
  }

  /// A path; `~/` at its start stands for `home`.
  func path(home: String?) throws(ConfigError) -> ConfigValue<String> {
    let string = try nonEmptyString().value
    guard string.hasPrefix("~/") else { return ConfigValue(value: string, line: line) }
    guard let home else { throw failure("\(key): no home directory to expand ~ in") }
    return ConfigValue(value: home + string.dropFirst(), line: line)
  }

  func number(where valid: (Double) -> Bool, expected: String) throws(ConfigError) -> ConfigValue<Double> {
    // An integer is a number too: `deadline = 5`.
    let number = value.type == .int ? value.int.map(Double.init) : value.double
    guard let number, number.isFinite, valid(number) else { throw wrong(expected) }
    return ConfigValue(value: number, line: line)
  }

  /// A gain in decibels, -15 to 15 (ReplayGain's preamp range in foobar2000 and MPD).
  func decibels() throws(ConfigError) -> ConfigValue<Double> {
    try number(where: { abs($0) <= 15 }, expected: "a number of decibels from -15 to 15")
  }

  func integer(in range: ClosedRange<Int>) throws(ConfigError) -> ConfigValue<Int> {
    guard value.type == .int, let integer = value.int, range.contains(integer) else {
      throw wrong("an integer from \(range.lowerBound) to \(range.upperBound)")
    }
    return ConfigValue(value: integer, line: line)
  }

  func boolean() throws(ConfigError) -> ConfigValue<Bool> {
    guard value.type == .bool, let bool = value.bool else { throw wrong("true or false") }
    return ConfigValue(value: bool, line: line)
  }

  /// The key is not one of `known`: names the closest, when one is close.
  func unknown(among known: [String]) -> ConfigError {
    if value.type == .table { return failure("unknown table [\(key)]") }
    let closest = known.min { Self.distance($0, key) < Self.distance($1, key) }
    if let closest, Self.distance(closest, key) <= 2 {
      return failure("unknown key '\(key)' (did you mean '\(closest)'?)")
    }
    return failure("unknown key '\(key)' (known keys: \(known.joined(separator: ", ")))")
  }

  private static func describe(_ value: any TOMLValueConvertible) -> String {
    switch value.type {
    case .string: tomlQuoted(value.string ?? "")
    case .int: value.int.map(String.init) ?? "an integer"
    case .double: value.double.map { "\($0)" } ?? "a number"
    case .bool: value.bool.map { "\($0)" } ?? "a boolean"
    case .table: "a table"
    case .array: "an array"
    default: "a date or time"
    }
  }

  /// The edit distance of two short keys.
  private static func distance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    var row = Array(0...b.count)
    for i in 1...max(a.count, 1) where !a.isEmpty {
      var next = [i] + Array(repeating: 0, count: b.count)
      for j in 1...max(b.count, 1) where !b.isEmpty {
        next[j] = min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
      }
      row = next
    }
    return row[b.count]
  }
}
