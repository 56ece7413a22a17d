// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "splay",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "Futures", targets: ["Futures"]),
    .library(name: "PlayerCore", targets: ["PlayerCore"]),
    .library(name: "PlayerPulse", targets: ["PlayerPulse"]),
    .library(name: "PlayerDecoding", targets: ["PlayerDecoding"]),
    .library(name: "PlayerLibrary", targets: ["PlayerLibrary"]),
    .library(name: "PlayerScripts", targets: ["PlayerScripts"]),
    .library(name: "PlayerIndex", targets: ["PlayerIndex"]),
    .executable(name: "splay", targets: ["PlayerCLI"]),
    .executable(name: "splay-library", targets: ["LibraryCLI"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
    .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    .package(url: "https://github.com/LebJe/TOMLKit", exact: "0.6.0"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
  ],
  targets: [
    .target(name: "Futures"),
    // No pkg-config: libpulse's gives only `-D_REENTRANT -pthread` besides `-lpulse` (which the module map
    // links), and SwiftPM refuses those two with a warning on every build. The headers are in /usr/include
    // (libpulse-dev, which scripts/install-deps installs).
    .systemLibrary(name: "CPulseAudio"),
    .systemLibrary(
      name: "CSndfile",
      pkgConfig: "sndfile",
      providers: [.apt(["libsndfile1-dev"])]
    ),
    // FFmpeg, loaded with dlopen when a file needs it: linked, its ~130 libraries would load before every `main`.
    // The headers (scripts/install-deps) are needed to build; the libraries only to play what libsndfile cannot.
    .target(name: "CFFmpeg"),
    // FAAD2 for AAC-LC in MP4/M4A, loaded with dlopen on first use like FFmpeg; one small library where FFmpeg
    // maps 130 (header: libfaad-dev, see scripts/install-deps).
    .target(name: "CFaad"),
    // Gives the splay executable an `mpg123_new` that quiets libmpg123 under libsndfile (see its source). The
    // linker exports it by itself: libsndfile, on the link line, refers to that name.
    .target(name: "CMpg123Quiet"),
    // ReplayGain's cut of 16-bit samples with SSE2's pmaddwd (GainedDecoder), which Swift does not emit.
    .target(name: "CSampleGain"),
    // Starts a thread on another CPU than the caller's (GNU affinity calls Swift's Glibc does not declare).
    .target(name: "CThreadStart"),
    // Begins connecting to the sound server before `main` for `splay play` (see its source); PlayerCLI's
    // EarlyStart takes the connection over.
    .target(name: "CEarlyConnect", dependencies: ["CThreadStart"], linkerSettings: [.linkedLibrary("pulse")]),
    // sd-bus for MPRIS: the object's vtables in C, the rest in PlayerCLI/MPRISBus. Linked, not loaded with dlopen:
    // libpulse already brings libsystemd into every process. Headers: libsystemd-dev (scripts/install-deps).
    .target(name: "CSDBus", linkerSettings: [.linkedLibrary("systemd")]),
    .target(
      name: "PlayerCore",
      dependencies: [
        "Futures",
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    // The control socket's JSON-lines protocol (docs/protocol.md), both ends: requests read into `PlayerCommand`s,
    // states and replies written as lines, by hand rather than with Foundation's coders (JSONReader, JSONWriter).
    // A target of its own so that the player library carries no wire format.
    .target(name: "ControlProtocol", dependencies: ["PlayerCore"]),
    // The user's config.toml: parsed, checked key by key, each value with the line it came from.
    // The console writer both executables share.
    .target(name: "SplayConsole"),
    .target(name: "SplayConfig", dependencies: [.product(name: "TOMLKit", package: "TOMLKit")]),
    // The PulseAudio output: the only target that imports libpulse.
    .target(name: "PlayerPulse", dependencies: ["PlayerCore", "Futures", "CPulseAudio"]),
    // The decoders (libsndfile, FFmpeg, FAAD2): the only target that imports them.
    .target(
      name: "PlayerDecoding", dependencies: ["PlayerCore", "Futures", "CSndfile", "CFFmpeg", "CFaad", "CSampleGain"]),
    // The collection: folders, playlists, tags and cover art, turned into the paths a queue holds.
    .target(name: "PlayerLibrary", dependencies: ["PlayerCore", "Futures"]),
    // Playback scripts (`splay run`): parsing, and running them against a controller.
    .target(name: "PlayerScripts", dependencies: ["PlayerCore", "PlayerLibrary", "Futures"]),
    // A script's server checks on PulseAudio (`expect audio`, `check always state-matches-server`): a second
    // connection that records the sink and reads splay's stream, joined to the scripts without either knowing the other.
    .target(name: "ScriptProbes", dependencies: ["PlayerCore", "PlayerPulse", "PlayerScripts", "Futures"]),
    // The library index (SQLite with FTS5, through GRDB): the only target that links SQLite.
    .target(
      name: "PlayerIndex",
      dependencies: ["PlayerCore", "PlayerLibrary", .product(name: "GRDB", package: "GRDB.swift")]),
    // `splay-library`, which `splay library`, `splay search` and `play --search` run: a program of its own, so that
    // libsqlite3 does not load before every `splay play` (docs/performance.md).
    .executableTarget(
      name: "LibraryCLI",
      dependencies: [
        "ControlProtocol",
        "PlayerIndex",
        "PlayerCore",
        "PlayerDecoding",
        "PlayerLibrary",
        "CMpg123Quiet",
        "SplayConsole",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .executableTarget(
      name: "PlayerCLI",
      dependencies: [
        "PlayerCore",
        "PlayerDecoding",
        "PlayerLibrary",
        "PlayerPulse",
        "PlayerScripts",
        "ScriptProbes",
        "ControlProtocol",
        "Futures",
        "CMpg123Quiet",
        "CThreadStart",
        "CEarlyConnect",
        "CSDBus",
        "SplayConfig",
        "SplayConsole",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
      ]
    ),
    // Shared by the test suites that record the sandbox's null sink; not a product.
    .target(name: "AudioTestSupport", dependencies: ["Futures"], path: "Tests/AudioTestSupport"),
    // The controller on a simulated output and fake decoders, for tests of either kind below.
    .target(
      name: "PlayerTestSupport", dependencies: ["PlayerCore", "PlayerScripts", "Futures"],
      path: "Tests/PlayerTestSupport"),
    // The player's logic, tested without libpulse, libsndfile, FFmpeg or FAAD2 (`scripts/check-layering`).
    .testTarget(
      name: "PlayerLogicTests",
      dependencies: [
        "PlayerCore",
        "PlayerLibrary",
        "PlayerScripts",
        "PlayerTestSupport",
        "Futures",
        "AudioTestSupport",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ]
    ),
    .testTarget(name: "FuturesTests", dependencies: ["Futures"]),
    .testTarget(
      name: "PlayerCoreTests",
      dependencies: [
        "PlayerCore",
        "PlayerDecoding",
        "PlayerLibrary",
        "PlayerPulse",
        "PlayerScripts",
        "ScriptProbes",
        "Futures",
        "AudioTestSupport",
        "PlayerTestSupport",
        "CPulseAudio",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ]
    ),
    .testTarget(
      name: "ControlProtocolTests",
      dependencies: [
        "ControlProtocol",
        "PlayerCore",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ]
    ),
    .testTarget(name: "SplayConfigTests", dependencies: ["SplayConfig"]),
    .testTarget(
      name: "PlayerIndexTests", dependencies: ["PlayerIndex", "PlayerCore", "PlayerLibrary", "AudioTestSupport"]),
    .testTarget(
      name: "PlayerCLITests",
      dependencies: [
        "PlayerCore", "PlayerDecoding", "PlayerLibrary", "PlayerPulse", "PlayerScripts", "AudioTestSupport",
      ]),
  ]
)
