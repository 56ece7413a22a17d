/// `text` as a TOML basic string: quoted, with backslashes, quotes and control characters escaped, so that it
/// stays on one line and reads back as `text`.
package func tomlQuoted(_ text: String) -> String {
  var quoted = "\""
  for scalar in text.unicodeScalars {
    switch scalar {
    case "\\": quoted += "\\\\"
    case "\"": quoted += "\\\""
    case "\n": quoted += "\\n"
    case "\t": quoted += "\\t"
    case "\r": quoted += "\\r"
    case _ where scalar.value < 0x20 || scalar.value == 0x7F:
      let hex = String(scalar.value, radix: 16, uppercase: true)
      quoted += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    default: quoted.unicodeScalars.append(scalar)
    }
  }
  return quoted + "\""
}
