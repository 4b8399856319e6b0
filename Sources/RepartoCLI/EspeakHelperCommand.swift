import ArgumentParser
import Foundation
import Speech

/// `reparto espeak-helper`: one libespeak-ng synthesizer serving an ``EspeakHelperPool`` of the
/// parent process over standard input and output (started by `reparto run` and
/// `reparto bench pipeline`, not by hand).
struct EspeakHelperCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "espeak-helper",
        abstract: "Serve espeak-ng syntheses to the parent process (internal).",
        shouldDisplay: false)

    func run() throws {
        let status = EspeakHelper.serve()
        if status != 0 { throw ExitCode(status) }
    }
}
