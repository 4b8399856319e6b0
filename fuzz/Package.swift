// swift-tools-version:6.0
// libFuzzer harness for the Screenplay parsers. Build and run with scripts/fuzz-parsers.sh.
import PackageDescription

let package = Package(
    name: "ScreenplayFuzz",
    dependencies: [.package(name: "Reparto", path: "..")],
    targets: [
        .executableTarget(
            name: "ScreenplayFuzz",
            dependencies: [.product(name: "Screenplay", package: "Reparto")]
        ),
    ]
)
