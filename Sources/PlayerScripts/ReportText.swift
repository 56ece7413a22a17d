/// Text for test reports: TAP names, YAML scalars in TAP's diagnostics, XML for JUnit.
public enum ReportText {
  /// A case name in a TAP line, where `#` would start a directive.
  public static func tapName(_ name: String) -> String {
    name.replacing("#", with: "\\#")
  }

  /// A YAML double-quoted scalar: backslash, quote and control characters escaped.
  public static func yamlQuoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\\": out += "\\\\"
      case "\"": out += "\\\""
      case "\n": out += "\\n"
      case _ where scalar.value < 0x20:
        out += scalar.value < 0x10 ? "\\x0" : "\\x"
        out += String(scalar.value, radix: 16)
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }

  /// Text for an XML attribute or element: the five markup characters escaped, and control characters (which
  /// XML 1.0 cannot carry) replaced.
  public static func xmlEscaped(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&apos;"
      case "\t", "\n", "\r": out += "&#\(scalar.value);"
      case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF: out += "\u{FFFD}"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
}
