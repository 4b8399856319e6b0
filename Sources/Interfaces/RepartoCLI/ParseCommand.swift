import TerminalText
import ArgumentParser
import Foundation
import Screenplay

/// `reparto parse FILE`: reads a Fountain, FDX or Markdown screenplay and prints it as
/// JSON (default), Fountain or FDX.
public struct ParseCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "parse",
        abstract: "Parse a screenplay (Fountain, Final Draft FDX, Markdown) and print JSON, Fountain or FDX."
    )

    /// Output formats.
    public enum OutputFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
        case json, fountain, fdx
    }

    /// Input formats (overrides detection).
    public enum InputFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
        case fountain, fdx, markdown
    }

    @Argument(help: "The screenplay file, or - for standard input.") var file: String
    @Option(name: .long, help: "Output format: json, fountain or fdx.") var format: OutputFormat = .json
    @Option(name: .customLong("input-format"), help: "Input format: fountain, fdx or markdown (default: by extension, then content).")
    var inputFormat: InputFormat?

    @Option(name: .customLong("max-bytes"), help: "Reject inputs larger than this many bytes.") var maxBytes: Int = ParseOptions.defaultMaxBytes

    public init() {}

    public func run() async throws {
        let options = ParseOptions(maxBytes: maxBytes)
        let bytes = try InputFile.read(file, maxBytes: maxBytes)
        let document: ScreenplayDocument
        do {
            document = try ScreenplayReader.read(bytes, fileName: file == "-" ? nil : file,
                                                 format: inputFormat.flatMap { DocumentFormat(rawValue: $0.rawValue) },
                                                 options: options)
        } catch {
            throw CLIError("\(file): \(error)")
        }
        let output: String
        switch format {
        case .json: output = DocumentJSON.encode(document)
        case .fountain: output = FountainWriter().write(document)
        case .fdx: output = FDXWriter().write(document)
        }
        FileHandle.standardOutput.write(Data(output.utf8))
        // The JSON carries the warnings; the other formats cannot, so they go to stderr.
        if format != .json {
            for warning in document.warnings {
                FileHandle.standardError.write(Data("warning: \(file): \(warning)\n".utf8))
            }
        }
    }
}
