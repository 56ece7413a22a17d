// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "splay-benchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(path: ".."),
    .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
  ],
  targets: []
)
