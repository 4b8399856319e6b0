import ArgumentParser
import Foundation
import Speech

/// `reparto speech-helper`: one libespeak-ng and flite synthesizer serving a ``SpeechHelperPool``
/// of the parent process over standard input and output (started by `reparto run` and
/// `reparto bench pipeline`, not by hand).
struct SpeechHelperCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "speech-helper",
        abstract: "Serve espeak-ng and flite syntheses to the parent process (internal).",
        shouldDisplay: false)

    func run() throws {
        let status = SpeechHelper.serve()
        if status != 0 { throw ExitCode(status) }
    }
}
