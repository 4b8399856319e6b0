import SpeechJobs
import ProductionKit
import ArgumentParser
import Foundation
import RepartoConfiguration
import Screenplay
import Speech
import TerminalText

/// `reparto cast FILE [--json]`: reads a screenplay locally (no database or broker) and prints the
/// cast it would get, with the evidence for each choice, as a YAML cast file to review, edit and
/// pass back with `--cast` (or as JSON, also a valid cast file).
public struct CastCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "cast",
        abstract: "Propose a cast for a screenplay, with the evidence, as an editable cast file.",
        discussion: """
            Gender, age and identity (YOUNG EDWARD is EDWARD) are read from the script: introductions, \
            pronouns, cue words, a title-page cast list. Voices come from the configured offline engines \
            (espeak-ng, flite) unless --provider or the cast file names one. Names in --cast win.
            """
    )

    @Argument(help: "The screenplay file (Fountain, FDX, Markdown), or - for standard input.") var file: String
    @OptionGroup var castFlags: CastFlags
    @Flag(help: "Print JSON (a cast file that also carries every choice and its evidence).") var json = false
    @Option(help: "File of KEY=VALUE lines read when a variable is not set (default: .reparto/env if present).") var envFile: String?

    public init() {}

    public func run() async throws {
        let overrides = try castFlags.overrides()
        let bytes = try InputFile.read(file, maxBytes: ParseOptions.defaultMaxBytes)
        let document: ScreenplayDocument
        do { document = try ScreenplayReader.read(bytes, fileName: file == "-" ? nil : file) } catch {
            throw CLIError("\(file): \(error)")
        }
        let configuration = try ConfigurationValues.load(flags: [:], envFile: envFile)
        let registry = VoiceProviderRegistry.standard(environment: configuration.variables)
        let proposal: CastProposal
        do {
            proposal = try await CastingDirector.propose(document: document, registry: registry, overrides: overrides)
        } catch let error as SpeechError {
            throw CLIError("cast: \(error.description)")
        }
        let source = file == "-" ? "standard input" : (file as NSString).lastPathComponent
        let output = json ? try CastText.json(proposal) : CastText.yaml(proposal, source: source)
        FileHandle.standardOutput.write(Data(output.utf8))
    }
}
