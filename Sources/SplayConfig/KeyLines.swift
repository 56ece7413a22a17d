/// Where each key of a TOML text is set: the TOML library reports where a parse fails, not where a value that
/// parsed came from, and an error about a key or value must name its line. Reads the simple shapes a config
/// file has (`key = value` under `[table]` headers); a key it cannot place is reported at line 1.
struct KeyLines {
  private var lines: [String: Int] = [:]

  /// Indexes `text`.
  init(_ text: String) {
    var table = ""
    var number = 0
    // Inside a multi-line string (`"""` or `'''`), lines are its text: a `[` or `=` there is not TOML.
    var openString: String?
    for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
      number += 1
      let line = raw.drop { $0 == " " || $0 == "\t" }
      if let delimiter = openString {
        if line.contains(delimiter) { openString = nil }
        continue
      }
      defer {
        for delimiter in ["\"\"\"", "'''"] where Self.occurrences(of: delimiter, in: line) % 2 == 1 {
          openString = delimiter
        }
      }
      if line.hasPrefix("[") {
        let name = line.dropFirst().prefix { $0 != "]" }.filter { $0 != " " && $0 != "\t" && $0 != "[" }
        table = String(name)
        record(table, at: number)
      } else if let equals = line.firstIndex(of: "=") {
        let key = line[..<equals].trimmingCharacters(in: " \t\"'")
        guard !key.isEmpty, !key.hasPrefix("#") else { continue }
        // A dotted key (`a.b = 1`) also names its tables, `a` among them.
        let parts = key.split(separator: ".").map { $0.trimmingCharacters(in: " \t\"'") }
        for count in 1...parts.count {
          let path = parts.prefix(count).joined(separator: ".")
          record(table.isEmpty ? path : table + "." + path, at: number)
        }
      }
    }
  }

  private static func occurrences(of delimiter: String, in line: Substring) -> Int {
    var count = 0
    var rest = line[...]
    while let range = rest.firstRange(of: delimiter) {
      count += 1
      rest = rest[range.upperBound...]
    }
    return count
  }

  private mutating func record(_ path: String, at line: Int) {
    if lines[path] == nil { lines[path] = line }
  }

  /// The line that sets `path` (`key`, or `table.key`), or that opens the table `path`.
  func line(of path: String) -> Int {
    lines[path] ?? 1
  }
}

extension Substring {
  fileprivate func trimmingCharacters(in set: String) -> String {
    let trimmed = drop { set.contains($0) }
    return String(trimmed.reversed().drop { set.contains($0) }.reversed())
  }
}
