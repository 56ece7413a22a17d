import Dispatch
import Futures
import PlayerCore

#if canImport(Glibc)
  import Glibc
#endif

/// Probes folders' files on other cores while the walk goes on, and hands back the audio files in the order
/// they were submitted.
///
/// A folder of 200,000 files is as many `open`s: probed in line, they kept the first track past a second, and
/// probed folder by folder in parallel, one core still waited on the other's walk and sort.
final class FolderProbes: Sendable {
  /// One run of files of one folder with a descriptor of its own; `verdicts` is written in place by the one
  /// worker that takes the batch, and read after the group has waited for that worker.
  private final class Batch: @unchecked Sendable {
    let paths: ArraySlice<String>
    let nameOffset: Int
    let folder: Int32
    var verdicts: [Bool]

    init(paths: ArraySlice<String>, nameOffset: Int, folder: Int32) {
      self.paths = paths
      self.nameOffset = nameOffset
      self.folder = folder
      verdicts = Array(repeating: false, count: paths.count)
    }
  }

  /// The batches waiting for a worker, and the lanes no worker runs on.
  private struct Work {
    var waiting: [Batch] = []
    var next = 0
    var freeLanes: [Int]
  }

  /// Files per batch: a big flat folder is shared among the cores, and handing out a batch costs far less than
  /// probing it.
  static let batchSize = 256
  /// Batches submitted and not yet probed, at most: each holds a duplicate of its folder's descriptor, and the
  /// process may have only 1,024.
  static let inFlight = 64

  private let isAudio: @Sendable (FolderFile) -> Bool
  /// One serial queue per core, each running one worker at most: a concurrent queue started a thread per
  /// blocked `open` (each with a malloc arena) and woke libdispatch's pool monitor, which kept `serve` waking.
  private let lanes: [DispatchQueue]
  private let work: Lock<Work>
  private let group = DispatchGroup()
  private let slots = DispatchSemaphore(value: FolderProbes.inFlight)
  /// Every batch submitted since the last collection, in order, and their files. Touched by the walking
  /// thread only; the lock is there for `Sendable`.
  private let submitted = Lock<(batches: [Batch], files: Int)>(([], 0))

  init(isAudio: @escaping @Sendable (FolderFile) -> Bool) {
    self.isAudio = isAudio
    let cores = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    lanes = (0..<cores).map { DispatchQueue(label: "splay.folder-probes.\($0)") }
    work = Lock(Work(freeLanes: Array(lanes.indices)))
  }

  /// The files submitted and not yet collected: the most that ``collect()`` can return.
  var pending: Int { submitted.withLock { $0.files } }

  /// Probes `paths`, files of the open folder `folder` whose names start at UTF-8 offset `nameOffset`, in the
  /// background. The descriptor is duplicated: the caller may close its own at once.
  func submit(_ paths: [String], nameOffset: Int, folder: Int32) {
    var start = paths.startIndex
    while start < paths.endIndex {
      let end = min(start + Self.batchSize, paths.endIndex)
      slots.wait()
      let batch = Batch(paths: paths[start..<end], nameOffset: nameOffset, folder: dup(folder))
      submitted.withLock {
        $0.batches.append(batch)
        $0.files += batch.paths.count
      }
      let lane = work.withLock { work in
        work.waiting.append(batch)
        return work.freeLanes.popLast()
      }
      if let lane {
        lanes[lane].async(group: group) { self.drain(lane: lane) }
      }
      start = end
    }
  }

  /// The audio files of everything submitted so far, in order, once every probe has ended. The caller's
  /// thread probes too rather than wait idle.
  func collect() -> [String] {
    drain(lane: nil)
    group.wait()
    let batches = submitted.withLock { submitted in
      defer { submitted = ([], 0) }
      return submitted.batches
    }
    var audio: [String] = []
    for batch in batches {
      for (path, isAudio) in zip(batch.paths, batch.verdicts) where isAudio { audio.append(path) }
    }
    return audio
  }

  /// Probes waiting batches until none is left; a worker (on `lane`) then frees its lane in the same step, so
  /// that a batch submitted meanwhile always finds a worker.
  private func drain(lane: Int?) {
    while let batch = take(lane: lane) {
      defer {
        if batch.folder >= 0 { close(batch.folder) }
        slots.signal()
      }
      guard batch.folder >= 0 else { continue }
      for (offset, path) in batch.paths.enumerated() {
        batch.verdicts[offset] = isAudio(FolderFile(path: path, nameOffset: batch.nameOffset, folder: batch.folder))
      }
    }
  }

  private func take(lane: Int?) -> Batch? {
    work.withLock { work in
      guard work.next < work.waiting.count else {
        work.waiting.removeAll()
        work.next = 0
        if let lane { work.freeLanes.append(lane) }
        return nil
      }
      defer { work.next += 1 }
      return work.waiting[work.next]
    }
  }
}
