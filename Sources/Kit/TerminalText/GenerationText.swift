import Foundation
import Generation
import Providers

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

    /// The providers as a table: one line per id; CONFIGURED says which capabilities are not.
    public static func providers(_ states: [ProviderState]) -> String {
        TextTable.render(
            header: ["ID", "CAPABILITIES", "MODELS", "ENABLED", "CONFIGURED", "NAME"],
            rows: states.map { state in
                [state.id, state.capabilities.joined(separator: ","),
                 state.models.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "),
                 state.enabled ? "yes" : "no",
                 !state.configured ? "no" : state.unconfigured.isEmpty ? "yes" : "not " + state.unconfigured.joined(separator: ","),
                 state.name]
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
