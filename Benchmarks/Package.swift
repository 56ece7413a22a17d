// swift-tools-version: 6.1
// The benchmarks of issue 8 (Futures; PlayerCore's command cost and decoding speed; the controller's
// acknowledgement latency on the real output), in their own package so that the main build and `make test`
// never fetch or compile the benchmark framework and the peers. Run them with `make bench` or
// `make bench-quick` from the repository root (Benchmarks/run-futures.py, run-player.py and run-audio.py
// drive them).
import PackageDescription

let package = Package(
  name: "splay-benchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [
    // Named, because a path dependency is otherwise known by its folder name, which differs between clones.
    .package(name: "splay", path: ".."),
    // Only the malloc interposer: the default RuntimeInterposer trait needs a package that is not mirrored here.
    .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
  ],
  targets: [
    // The workloads, one implementation per contender, shared by the in-process benchmarks and the probe.
    .target(
      name: "FuturePeers",
      dependencies: [
        .product(name: "Futures", package: "splay"),
        .product(name: "OpenCombine", package: "OpenCombine"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
      ],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    // Runs one long-chain case per process, so a peer that overflows the stack cannot end the whole run.
    .executableTarget(
      name: "FuturesProbe",
      dependencies: ["FuturePeers"],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    .executableTarget(
      name: "FuturesBenchmarks",
      dependencies: [
        "FuturePeers",
        .product(name: "Benchmark", package: "benchmark"),
      ],
      path: "Benchmarks/FuturesBenchmarks",
      swiftSettings: [.swiftLanguageMode(.v6)],
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    // The PlayerCore workloads (a controller on the simulated output, whole-file decoding), shared by the
    // in-process benchmarks and the decoding probe.
    .target(
      name: "PlayerWorkloads",
      dependencies: [
        .product(name: "Futures", package: "splay"),
        .product(name: "PlayerCore", package: "splay"),
        .product(name: "PlayerDecoding", package: "splay"),
      ],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    // Decodes one file and exits, so splay's decoder can be timed as a whole process beside `flac -d` and `sox`.
    .executableTarget(
      name: "DecodeProbe",
      dependencies: ["PlayerWorkloads"],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    // Times searches of a library index in one process (the open index, no process start), for
    // Benchmarks/run-library.py.
    .executableTarget(
      name: "LibraryProbe",
      dependencies: [.product(name: "PlayerIndex", package: "splay")],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    // Times pause, play, seek and volume through the controller API on the real PulseAudio output, for
    // Benchmarks/run-audio.py (the socket and mpv figures come from the script itself).
    .executableTarget(
      name: "ControlProbe",
      dependencies: [
        .product(name: "Futures", package: "splay"),
        .product(name: "PlayerCore", package: "splay"),
        .product(name: "PlayerDecoding", package: "splay"),
        .product(name: "PlayerPulse", package: "splay"),
      ],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    // A bare libpulse client timing the server's answers to the operations splay's commands wait for: the
    // floor beside splay's and mpv's acknowledgement figures in Benchmarks/run-audio.py. In C, with no
    // player around it.
    .executableTarget(
      name: "PulseFloorProbe",
      linkerSettings: [.linkedLibrary("pulse")]
    ),
    // A D-Bus client timing MPRIS calls on one open connection (sd-bus), for the MPRIS rows of
    // Benchmarks/run-audio.py (Benchmarks/bench_mpris.py): PlayPause on splay and on mpv with Debian's mpv-mpris
    // plugin, with no process start-up in the figures. In C, like PulseFloorProbe; libsystemd-dev has the header.
    .executableTarget(
      name: "MPRISProbe",
      linkerSettings: [.linkedLibrary("systemd")]
    ),
    .executableTarget(
      name: "PlayerCoreBenchmarks",
      dependencies: [
        "PlayerWorkloads",
        .product(name: "Benchmark", package: "benchmark"),
      ],
      path: "Benchmarks/PlayerCoreBenchmarks",
      swiftSettings: [.swiftLanguageMode(.v6)],
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
  ]
)
