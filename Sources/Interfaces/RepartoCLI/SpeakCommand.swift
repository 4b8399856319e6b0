import ArgumentParser
import Foundation
import RepartoConfiguration
import Speech

/// `reparto speak "text" [--provider P] [--voice V] [--language L] -o out.wav`: speaks one text
/// into a WAV file. With `--lines FILE --output-dir DIR` it speaks every non-empty line of FILE
/// into DIR/0001.wav, DIR/0002.wav, … in one process (used by bench/speech/run.sh).
public struct SpeakCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "speak",
        abstract: "Speak text into a WAV file.",
        discussion: "Text that starts with '-' goes last, after '--': reparto speak -o out.wav -- \"-5 degrees\". API keys come from ELEVENLABS_API_KEY / OPENAI_API_KEY or …_FILE."
    )

    @Argument(help: "The text to speak ('-' reads standard input).") var text: String?
    @Option(name: .long, help: "Provider id (default: espeak-ng).") var provider: String?
    @Option(name: .long, help: "Voice id (see `reparto voices`); default: the provider's first voice for the language.") var voice: String?
    @Option(name: .long, help: "Language, e.g. en, de, en-us.") var language: String?
    @Option(name: .long, help: "Speed multiplier (1.0 = normal).") var speed: Double = 1.0
    @Option(name: .long, help: "Pronunciation lexicon (YAML or JSON), applied before the provider speaks.") var lexicon: String?
    @Option(name: [.short, .customLong("output")], help: "Output WAV file.") var output: String?
    @Option(name: .long, help: "Speak each non-empty line of this file (batch mode; needs --output-dir).") var lines: String?
    @Option(name: .customLong("output-dir"), help: "Directory for batch output (0001.wav, 0002.wav, …).") var outputDir: String?
    @Flag(name: .shortAndLong, help: "Print nothing on success.") var quiet = false

    public init() {}

    /// Argument checks happen in `run()` and throw `CLIError`, so every error is one line
    /// (a `ValidationError` would also print the usage).
    func checkArguments() throws {
        if lines != nil {
            guard outputDir != nil else { throw CLIError("--lines needs --output-dir") }
            guard text == nil else { throw CLIError("give either text or --lines, not both") }
        } else {
            guard text != nil else { throw CLIError("give the text to speak (or --lines FILE)") }
            guard output != nil else { throw CLIError("give the output file with -o out.wav") }
        }
        guard speed > 0, speed <= 4 else { throw CLIError("--speed must be in (0, 4]") }
    }

    public func run() async throws {
        try checkArguments()
        // No cluster flags here: the environment, else .reparto/env (API keys, the espeak-ng engine).
        let lexicon = try lexicon.map { path in
            do { return try PronunciationLexicon.load(from: URL(fileURLWithPath: path)) } catch { throw CLIError("\(path): \(error)") }
        }
        let configuration = try ConfigurationValues.load()
        let synthesizer = SpeechSynthesizer(registry: .standard(environment: configuration.variables))
        let options = SynthesisOptions(speed: speed)
        let provider = try synthesizer.registry.configuredProvider(provider)
        func spoken(_ text: String) -> String { lexicon?.spokenText(text, alphabet: provider.phonemeAlphabet) ?? text }
        let voiceID: String
        if let voice { voiceID = voice } else { voiceID = try await synthesizer.defaultVoice(provider: provider, language: language).id }

        if let lines, let outputDir {
            let content: String
            do { content = try String(contentsOfFile: lines, encoding: .utf8) } catch { throw CLIError("\(lines): cannot read") }
            try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true)
            var count = 0
            var total = 0.0
            for line in content.split(whereSeparator: \.isNewline) where !line.allSatisfy(\.isWhitespace) {
                count += 1
                let audio = try await synthesizer.synthesize(text: spoken(String(line)), provider: provider.id, voice: voiceID,
                                                             language: language, options: options)
                try write(audio.data, to: outputDir + "/" + String(format: "%04d.wav", count))
                total += audio.duration ?? 0
            }
            if !quiet { print("wrote \(count) files to \(outputDir) (\(String(format: "%.1f", total)) s of audio)") }
            return
        }

        var said = text ?? ""
        if said == "-" {
            said = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        }
        let audio = try await synthesizer.synthesize(text: spoken(said), provider: provider.id, voice: voiceID, language: language,
                                                     options: options)
        try write(audio.data, to: output ?? "out.wav")
        if !quiet {
            let seconds = audio.duration.map { String(format: "%.2f s", $0) } ?? "?"
            print("wrote \(output ?? "out.wav") (\(seconds), voice \(voiceID), \(provider.id))")
        }
    }

    /// A plain blocking write: acceptable here because this is a one-shot CLI whose only task is
    /// waiting for it, and WAV files of single lines are small. Services use `AssetStore` instead.
    private func write(_ data: Data, to path: String) throws {
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CLIError("\(path): cannot write (\((error as NSError).localizedDescription))")
        }
    }
}
