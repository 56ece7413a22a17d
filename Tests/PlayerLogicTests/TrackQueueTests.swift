import PropertyBased
import Testing

@testable import PlayerCore

@Suite struct TrackQueueTests {
  /// Appends of any length to copies read as the same appends to arrays, and leave the other copies as they were.
  @Test func appendsReadAsAnArraysAndLeaveCopiesAlone() async {
    let lengths = Gen.int(in: 0...2_500).array(of: 1...6)
    await propertyCheck(count: 200, input: lengths) { lengths in
      var queue = TrackQueue()
      var array: [String] = []
      var copies: [(TrackQueue, [String])] = []
      for (step, length) in lengths.enumerated() {
        copies.append((queue, array))
        let paths = (0..<length).map { "\(step)/\($0).flac" }
        queue += paths
        array += paths
      }
      #expect(queue.count == array.count)
      #expect(Array(queue) == array)
      #expect(queue.indices.allSatisfy { queue[$0] == array[$0] })
      for (copy, expected) in copies {
        #expect(Array(copy) == expected, "a copy taken before an append is unchanged")
        #expect((copy == queue) == (expected == array))
      }
    }
  }

  /// What makes `enqueue` on a long queue cheap: the appended copy shares every full chunk with the original.
  @Test func anAppendSharesEveryFullChunkWithTheOriginal() {
    let original = TrackQueue((0..<(3 * TrackQueue.chunkSize + 5)).map { "\($0).flac" })
    var appended = original
    appended.append("new.flac")
    #expect(appended.count == original.count + 1)
    #expect(original.chunks.count == 4 && appended.chunks.count == 4)
    for chunk in 0..<3 {
      #expect(storage(of: original.chunks[chunk]) == storage(of: appended.chunks[chunk]), "chunk \(chunk) is shared")
    }
    #expect(storage(of: original.chunks[3]) != storage(of: appended.chunks[3]), "the grown chunk is its own")
    #expect(original.last == "\(3 * TrackQueue.chunkSize + 4).flac" && appended.last == "new.flac")
  }

  @Test func equalQueuesHashAlikeWhateverTheirChunksHistory() {
    let whole = TrackQueue((0..<2_100).map(String.init))
    var pieces = TrackQueue((0..<7).map(String.init))
    pieces += (7..<2_100).map(String.init)
    #expect(whole == pieces && whole.hashValue == pieces.hashValue)
    #expect(whole != TrackQueue((0..<2_099).map(String.init)))
    #expect(TrackQueue(["a", "b"]) != ["a", "c"])
  }

  private func storage(of chunk: [String]) -> UnsafeRawPointer? {
    chunk.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
  }
}
