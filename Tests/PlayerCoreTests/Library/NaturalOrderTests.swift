import PlayerCore
import PlayerLibrary
import PropertyBased
import Testing

@Suite struct NaturalOrderTests {
  @Test func numbersCompareByValueAndCaseIsFolded() {
    let names = ["10 - x.flac", "2 - x.flac", "1 - x.flac", "b.flac", "A.flac", "track 02.flac", "track 1.flac"]
    #expect(
      names.sorted(by: NaturalOrder.areInIncreasingOrder) == [
        "1 - x.flac", "2 - x.flac", "10 - x.flac", "A.flac", "b.flac", "track 1.flac", "track 02.flac",
      ])
  }

  @Test func pathsCompareOneComponentAtATime() {
    // Byte order would put "Disc 10/..." before "Disc 2/..." and "a b/" after "a/" by the space.
    let paths = ["Disc 10/1.flac", "Disc 2/10.flac", "Disc 2/9.flac", "a/z.flac", "a b/a.flac"]
    #expect(
      paths.sorted(by: NaturalOrder.areInIncreasingOrder) == [
        "a/z.flac", "a b/a.flac", "Disc 2/9.flac", "Disc 2/10.flac", "Disc 10/1.flac",
      ])
  }

  @Test func digitRunsLongerThanAnyIntegerStillCompare() {
    #expect(NaturalOrder.areInIncreasingOrder("x99999999999999999999999", "x100000000000000000000000"))
  }

  @Test func theOrderIsTotal() async {
    // Pieces that meet every rule: leading zeros, case, separators, multi-byte characters.
    let text = Gen.element(of: ["0", "01", "1", "a", "A", "/", "10", " ", "é"]).map { $0 ?? "" }
      .array(of: 0...6).map { $0.joined() }
    await propertyCheck(input: text, text, text) { a, b, c in
      let ab = NaturalOrder.compare(a, b)
      #expect(ab == -NaturalOrder.compare(b, a).signum(), "\(a) vs \(b)")
      #expect((ab == 0) == (a == b))
      if ab < 0, NaturalOrder.compare(b, c) < 0 { #expect(NaturalOrder.compare(a, c) < 0, "\(a) < \(b) < \(c)") }
    }
  }
}
