/// Formats seconds for messages: no trailing zeros, at most three decimals.
package func formatSeconds(_ seconds: Double) -> String {
  guard seconds.isFinite else { return String(seconds) }
  let millis = (seconds * 1000).rounded()
  if millis.truncatingRemainder(dividingBy: 1000) == 0 { return String(Int64(millis / 1000)) }
  var text = String(millis / 1000)
  while text.hasSuffix("0") { text.removeLast() }
  return text
}

/// `m:ss.mmm` for durations and positions (`h:mm:ss.mmm` from an hour on); `millis: false` drops the
/// milliseconds.
package func clockTime(_ seconds: Double, millis: Bool = true) -> String {
  let total = max(0, seconds.isFinite ? seconds : 0)
  // Whole seconds count down (a clock shows 0:01 once a second has played); milliseconds round, as the
  // decoder's messages do, so that `info` and a damage line name the same length.
  let ms = Int64(millis ? (total * 1000).rounded() : (total * 1000).rounded(.down))
  let (hours, inHour) = ms.quotientAndRemainder(dividingBy: 3_600_000)
  let (minutes, inMinute) = inHour.quotientAndRemainder(dividingBy: 60_000)
  let (secs, frac) = inMinute.quotientAndRemainder(dividingBy: 1000)
  func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
  let clock = hours > 0 ? "\(hours):\(two(minutes)):\(two(secs))" : "\(minutes):\(two(secs))"
  guard millis else { return clock }
  let digits = String(frac)
  return clock + "." + String(repeating: "0", count: 3 - digits.count) + digits
}

/// Seconds with exactly three decimals (`12.345`), for messages.
package func clockSeconds(_ seconds: Double) -> String {
  let millis = Int64((max(0, seconds.isFinite ? seconds : 0) * 1000).rounded())
  let fraction = String(millis % 1000)
  return "\(millis / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
}
