import Foundation
import Generation

/// How generation results, usage and providers read on a terminal.
public enum GenerationText {
    /// The usage summary as a table, or a line saying there is none.
    public static func usage(_ lines: [UsageSummary]) -> String {
        guard !lines.isEmpty else { return "no generation usage recorded" }
        return TextTable.render(
            header: ["PROVIDER", "CAPABILITY", "MODEL", "CALLS", "REUSED", "IN TOKENS", "OUT TOKENS", "CHARS", "IMAGES", "COST"],
            rows: lines.map { [$0.provider, $0.capability, $0.model, "\($0.calls)", "\($0.reused)", "\($0.inputTokens)",
                               "\($0.outputTokens)", "\($0.characters)", "\($0.images)", $0.cost.map { String(format: "%.4f", $0) } ?? "-"] })
    }

    /// One row of `reparto providers`.
    public struct ProviderLine: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        public var capabilities: [String]
        public var models: [String: String]
        public var enabled: Bool
        public var configured: Bool

        public init(id: String, name: String, capabilities: [String], models: [String: String], enabled: Bool, configured: Bool) {
            (self.id, self.name, self.capabilities, self.models, self.enabled, self.configured) = (id, name, capabilities, models, enabled, configured)
        }
    }

    /// The providers as a table.
    public static func providers(_ lines: [ProviderLine]) -> String {
        TextTable.render(
            header: ["ID", "CAPABILITIES", "MODELS", "ENABLED", "CONFIGURED", "NAME"],
            rows: lines.map { line in
                [line.id, line.capabilities.joined(separator: ","),
                 line.models.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "),
                 line.enabled ? "yes" : "no", line.configured ? "yes" : "no", line.name]
            })
    }

    /// A finished text job: the text itself (or where it is), then who answered.
    public static func text(_ result: GenerateTextJob.Result) -> String {
        var out = result.text ?? "(stored in \(result.path ?? "?"))"
        out += "\n-- \(result.provider) \(result.model)" + (result.reused ? ", reused" : "")
        if let input = result.inputTokens, let output = result.outputTokens { out += ", \(input) in / \(output) out tokens" }
        for failure in result.failures { out += "\n-- before: \(failure)" }
        return out
    }

    /// A finished embed job.
    public static func embeddings(_ result: EmbedJob.Result) -> String {
        "\(result.contentIDs.count) embeddings of \(result.dimensions) dimensions from \(result.provider) \(result.model)"
            + (result.reused > 0 ? ", \(result.reused) reused" : "")
    }

    /// A finished image job.
    public static func image(_ result: GenerateImageJob.Result) -> String {
        "\(result.path) (\(result.sizeBytes) bytes, sha256 \(result.sha256.prefix(12))…) from \(result.provider) \(result.model)"
            + (result.reused ? ", reused" : "")
    }
}
