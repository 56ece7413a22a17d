/// Formats seconds for messages: no trailing zeros, at most three decimals.
package func formatSeconds(_ seconds: Double) -> String {
  guard seconds.isFinite else { return String(seconds) }
  let millis = (seconds * 1000).rounded()
  if millis.truncatingRemainder(dividingBy: 1000) == 0 { return String(Int64(millis / 1000)) }
  var text = String(millis / 1000)
  while text.hasSuffix("0") { text.removeLast() }
  return text
}
