import ArgumentParser
import Foundation

/// `--library-peer PROG` of the speech and pipeline benchmarks: libespeak-ng called directly from
/// C (bench/speech/espeak-loop.c), the strictest peer.
struct LibraryPeerOption: ParsableArguments {
    @Option(name: .customLong("library-peer"),
            help: "A program speaking a file of lines with libespeak-ng directly (bench/speech/espeak-loop.c), run as a peer.")
    var path: String?

    /// The program, when given.
    var url: URL? { path.map { URL(fileURLWithPath: $0) } }

    func validate() throws {
        if let path, !FileManager.default.isExecutableFile(atPath: path) {
            throw ValidationError("--library-peer \(path) is not an executable (build it: cc -O2 -o espeak-loop bench/speech/espeak-loop.c -lespeak-ng)")
        }
    }
}
