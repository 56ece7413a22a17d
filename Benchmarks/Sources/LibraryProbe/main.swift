// Opens a library index and times a search in the open process: the query's own cost, beside the whole
// `splay search` command that Benchmarks/run-library.py times from spawn to exit.
//
//   LibraryProbe <index> <rounds> <query>
//
// Prints one line of JSON: {"open_ms": ..., "search_ms": [...], "found": ...}. Exits 66 when the index cannot be
// opened or searched.

import PlayerIndex

#if canImport(Glibc)
  import Glibc
#endif

func now() -> Double {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return Double(ts.tv_sec) * 1e3 + Double(ts.tv_nsec) / 1e6
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let rounds = Int(arguments[2]), rounds > 0 else {
  print("usage: LibraryProbe <index> <rounds> <query>")
  exit(64)
}
do {
  let start = now()
  let index = try LibraryIndex.openForSearch(at: arguments[1]).index
  let opened = now() - start
  let query = try LibraryQuery(arguments[3])
  var times: [Double] = []
  var found = 0
  for _ in 0..<rounds {
    let begin = now()
    found = try index.search(query).count
    times.append(now() - begin)
  }
  print("{\"open_ms\": \(opened), \"search_ms\": \(times), \"found\": \(found)}")
} catch {
  print("{\"error\": \"\(error.message)\"}")
  exit(66)
}
