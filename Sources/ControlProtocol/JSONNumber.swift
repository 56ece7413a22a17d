/// The whole number a JSON number denotes, read digit by digit (`1e2`, `100e-2` and `1.0` are whole; `1.5`
/// is not), the way JSONDecoder reads an integer.
enum JSONNumber {
  enum WholeValue: Equatable {
    case whole(Int64)
    case fraction
    /// The digits, or the value, do not fit 64 bits.
    case tooManyDigits
  }

  static func wholeValue(of text: String) -> WholeValue {
    var bytes = text.utf8[...]
    let negative = bytes.first == UInt8(ascii: "-")
    if negative { bytes = bytes.dropFirst() }
    // Accumulated negatively, so that Int64.min fits.
    var value: Int64 = 0
    var overflow = false
    var fractionDigits = 0
    var inFraction = false
    var exponent = 0
    var exponentNegative = false
    var inExponent = false
    for byte in bytes {
      switch byte {
      case UInt8(ascii: "."): inFraction = true
      case UInt8(ascii: "e"), UInt8(ascii: "E"): inExponent = true
      case UInt8(ascii: "-") where inExponent: exponentNegative = true
      case UInt8(ascii: "+") where inExponent: break
      case UInt8(ascii: "0")...UInt8(ascii: "9"):
        let digit = Int64(byte - UInt8(ascii: "0"))
        if inExponent {
          exponent = min(exponent * 10 + Int(digit), 100_000)
        } else {
          if inFraction { fractionDigits += 1 }
          let (times, o1) = value.multipliedReportingOverflow(by: 10)
          let (sum, o2) = times.subtractingReportingOverflow(digit)
          value = sum
          overflow = overflow || o1 || o2
        }
      default: return .fraction
      }
    }
    if overflow { return .tooManyDigits }
    if value == 0 { return .whole(0) }
    let shift = (exponentNegative ? -exponent : exponent) - fractionDigits
    if shift >= 0 {
      for _ in 0..<shift {
        let (times, o) = value.multipliedReportingOverflow(by: 10)
        if o { return .tooManyDigits }
        value = times
      }
    } else {
      for _ in 0 ..< -shift {
        guard value % 10 == 0 else { return .fraction }
        value /= 10
      }
    }
    if negative { return .whole(value) }
    let (positive, o) = (0 as Int64).subtractingReportingOverflow(value)
    return o ? .tooManyDigits : .whole(positive)
  }
}
