// swift-tools-version:6.0
// A standalone runner with the same timing loop as `reparto bench parse`
// (RepartoBench.ParseBenchmark), without the CLI and its argument parsing.
import PackageDescription

let package = Package(
    name: "ParseBenchRunner",
    dependencies: [.package(name: "Reparto", path: "../../..")],
    targets: [
        .executableTarget(name: "parse-bench", dependencies: [.product(name: "Screenplay", package: "Reparto"),
                                                               .product(name: "RepartoBench", package: "Reparto")]),
    ]
)
