import Dispatch

#if canImport(Glibc)
  import Glibc
#endif

extension Array where Element: Sendable {
  /// The elements that `isIncluded` accepts, in their order, tested on every core at once.
  ///
  /// For tests that wait on the kernel (opening a file to read its first bytes): a folder of 200,000 files is
  /// that many `open`s, and one core alone kept the first track of such a folder past a second.
  func concurrentFilter(_ isIncluded: @Sendable (Element) -> Bool) -> [Element] {
    // Chunks big enough that handing one out costs far less than testing it, several per core so that a slow
    // file (a cold disk) does not leave the other cores idle.
    let cores = Swift.max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    let chunks = Swift.min(cores * 4, count / 32)
    guard cores > 1, chunks > 1 else { return filter(isIncluded) }
    let verdicts = [Bool](unsafeUninitializedCapacity: count) { buffer, initialized in
      withUnsafeBufferPointer { elements in
        let shared = SharedBuffers(elements: elements, verdicts: buffer.baseAddress!)
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
          // Each chunk writes only its own indices.
          for index in chunk * shared.elements.count / chunks..<(chunk + 1) * shared.elements.count / chunks {
            (shared.verdicts + index).initialize(to: isIncluded(shared.elements[index]))
          }
        }
      }
      initialized = count
    }
    return zip(self, verdicts).compactMap { $1 ? $0 : nil }
  }
}

/// The elements and the verdicts' storage, shared by the chunks: the elements are only read, each chunk writes
/// its own verdicts, and `concurrentPerform` returns only when every chunk has.
private struct SharedBuffers<Element>: @unchecked Sendable {
  let elements: UnsafeBufferPointer<Element>
  let verdicts: UnsafeMutablePointer<Bool>
}
