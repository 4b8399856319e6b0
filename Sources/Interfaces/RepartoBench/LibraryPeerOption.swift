import ArgumentParser
import Foundation

/// `--library-peer PROG` of the speech and pipeline benchmarks: libespeak-ng called directly from
/// C (bench/speech/espeak-loop.c), the strictest peer.
public struct LibraryPeerOption: ParsableArguments {
    @Option(name: .customLong("library-peer"),
            help: "A program speaking a file of lines with libespeak-ng directly (bench/speech/espeak-loop.c), run as a peer.")
    public var path: String?

    /// The program, when given.
    public var url: URL? { path.map { URL(fileURLWithPath: $0) } }

    /// Creates the option (ArgumentParser fills it in).
    public init() {}

    /// Refuses a path that is not an executable, saying how to build the peer.
    public func validate() throws {
        if let path, !FileManager.default.isExecutableFile(atPath: path) {
            throw ValidationError("--library-peer \(path) is not an executable (build it: cc -O2 -o espeak-loop bench/speech/espeak-loop.c -lespeak-ng)")
        }
    }
}
