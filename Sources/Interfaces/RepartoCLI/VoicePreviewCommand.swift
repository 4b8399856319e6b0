import ArgumentParser
import Foundation
import RepartoConfiguration
import Speech

/// `reparto voices preview VOICE [--provider P] [--text T] [--output FILE] [--force]`: speaks a
/// sample sentence with one voice into a WAV file, so a writer can hear it before casting it.
struct VoicePreviewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Speak a sample sentence with a voice into a WAV file.",
        discussion: """
            Without --provider the voice is looked up among the configured providers (espeak-ng first). \
            The file is preview-VOICE.wav in the current folder unless --output names one; an existing file \
            is kept unless --force.
            """)

    @Argument(help: "Voice id (see `reparto voices --provider P`).") var voice: String
    @Option(name: .long, help: "Provider id (default: the first configured provider that lists the voice, else espeak-ng).") var provider: String?
    @Option(name: .long, help: "What to say instead of the sample sentence.") var text: String?
    @Option(name: [.short, .customLong("output")], help: "Output WAV file (default: preview-VOICE.wav).") var output: String?
    @Flag(name: .long, help: "Replace an existing output file.") var force = false

    func run() async throws {
        let path = output ?? VoicePreview.defaultFileName(voice: voice)
        if !force && FileManager.default.fileExists(atPath: path) { throw CLIError("\(path) exists (use --force to replace it)") }
        // No cluster flags here: the environment, else .reparto/env (API keys, the espeak-ng engine).
        let registry = VoiceProviderRegistry.standard(environment: try ConfigurationValues.load().variables)
        let speaker = try await VoicePreview.provider(for: voice, named: provider, in: registry)
        let audio = try await SpeechSynthesizer(registry: registry)
            .synthesize(text: text ?? VoicePreview.sampleSentence, provider: speaker.id, voice: voice, language: nil, options: .standard)
        do {
            try audio.data.write(to: URL(fileURLWithPath: path), options: force ? .atomic : .withoutOverwriting)
        } catch {
            throw CLIError("\(path): cannot write (\((error as NSError).localizedDescription))")
        }
        print("wrote \(path) (\(audio.duration.map { String(format: "%.2f s", $0) } ?? "?"), voice \(voice), \(speaker.id))")
    }
}
