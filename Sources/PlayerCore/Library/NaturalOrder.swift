/// The order a person expects of file names: `2 - x` before `10 - x`, case folded, compared one path
/// component at a time so that a folder's files stay together.
public enum NaturalOrder {
  /// Whether `a` sorts before `b`.
  public static func areInIncreasingOrder(_ a: String, _ b: String) -> Bool {
    compare(a, b) < 0
  }

  /// Negative, zero or positive as `a` sorts before, with or after `b`; zero only for equal strings.
  public static func compare(_ a: String, _ b: String) -> Int {
    let left = a.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
    let right = b.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
    for (l, r) in zip(left, right) {
      let order = compareComponent(Array(l), Array(r))
      if order != 0 { return order }
    }
    if left.count != right.count { return left.count < right.count ? -1 : 1 }
    // Equal by the natural rules ("a01" and "a1", "A" and "a"): the bytes decide, so the order is total.
    return a == b ? 0 : (Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) ? -1 : 1)
  }

  /// Compares one component: runs of digits by value, everything else byte by byte with ASCII case folded
  /// (other scripts have no case that a file manager folds in a way worth the cost here).
  static func compareComponent(_ a: [UInt8], _ b: [UInt8]) -> Int {
    var i = 0
    var j = 0
    while i < a.count, j < b.count {
      if isDigit(a[i]), isDigit(b[j]) {
        let startA = i
        let startB = j
        while i < a.count, isDigit(a[i]) { i += 1 }
        while j < b.count, isDigit(b[j]) { j += 1 }
        let order = compareNumbers(a[startA..<i], b[startB..<j])
        if order != 0 { return order }
        continue
      }
      let x = folded(a[i])
      let y = folded(b[j])
      if x != y { return x < y ? -1 : 1 }
      i += 1
      j += 1
    }
    let restA = a.count - i
    let restB = b.count - j
    return restA == restB ? 0 : (restA < restB ? -1 : 1)
  }

  /// Compares digit runs by value without converting them (a run may be longer than any integer type).
  private static func compareNumbers(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Int {
    let x = a.drop(while: { $0 == UInt8(ascii: "0") })
    let y = b.drop(while: { $0 == UInt8(ascii: "0") })
    if x.count != y.count { return x.count < y.count ? -1 : 1 }
    for (p, q) in zip(x, y) where p != q { return p < q ? -1 : 1 }
    return 0
  }

  private static func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
  }

  private static func folded(_ byte: UInt8) -> UInt8 {
    byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
  }
}
