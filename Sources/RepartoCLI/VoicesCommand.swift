import ArgumentParser
import Foundation
import Speech

/// `reparto voices [--provider P] [--language L] [--json]`: lists a provider's voices.
public struct VoicesCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "voices",
        abstract: "List the voices of a speech provider (espeak-ng, elevenlabs, openai).",
        discussion: "API keys come from ELEVENLABS_API_KEY / OPENAI_API_KEY or the files named by …_FILE, never from flags."
    )

    @Option(name: .long, help: "Provider id (default: espeak-ng).")
    var provider: String?

    @Option(name: .long, help: "Only voices for this language (e.g. en, de, en-us).")
    var language: String?

    @Flag(name: .long, help: "Print JSON instead of a table.")
    var json = false

    @Flag(name: .long, help: "List the providers and whether they are configured, instead of voices.")
    var providers = false

    public init() {}

    public func run() async throws {
        let registry = VoiceProviderRegistry.standard()
        if providers {
            let rows = registry.all.map { ProviderRow(id: $0.id, name: $0.displayName, configured: $0.isConfigured, requiresAPIKey: $0.requiresAPIKey) }
            if json { try printJSON(rows) } else {
                for row in rows { print("\(row.id)\t\(row.configured ? "configured" : "not configured")\t\(row.name)") }
            }
            return
        }
        let voices = try await registry.configuredProvider(provider).voices(language: language)
        if json {
            try printJSON(voices)
        } else {
            print("id\tname\tgender\tlanguages")
            for v in voices { print("\(v.id)\t\(v.name)\t\(v.gender ?? "-")\t\(v.languages.joined(separator: ","))") }
        }
    }

    struct ProviderRow: Encodable {
        var id: String, name: String, configured: Bool, requiresAPIKey: Bool
    }

    private func printJSON<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        FileHandle.standardOutput.write(try encoder.encode(value) + Data("\n".utf8))
    }
}
