import Metrics

/// The usage ledger as swift-metrics counters, emitted when a provider call answers (whether or
/// not the job's completion commits, the provider has been used).
///
/// - `reparto_generation_calls_total{provider,model,capability,reused}`: ledger lines;
/// - `reparto_generation_tokens_total{provider,model,direction}`: `direction` is `input` or `output`;
/// - `reparto_generation_characters_total{provider,model,capability}`: characters sent;
/// - `reparto_generation_images_total{provider,model}`: images made;
/// - `reparto_generation_audio_seconds_total{provider,model}`: seconds of speech synthesized
///   (`model` is the voice).
///
/// A reuse counts one call with `reused="true"` and nothing else.
public enum UsageMetrics {
    /// Adds one ledger line to the counters.
    public static func record(_ entry: UsageEntry) {
        let model = [("provider", entry.provider), ("model", entry.model)]
        Counter(label: "reparto_generation_calls_total",
                dimensions: model + [("capability", entry.capability), ("reused", entry.reused ? "true" : "false")]).increment()
        if entry.inputTokens > 0 {
            Counter(label: "reparto_generation_tokens_total", dimensions: model + [("direction", "input")])
                .increment(by: entry.inputTokens)
        }
        if entry.outputTokens > 0 {
            Counter(label: "reparto_generation_tokens_total", dimensions: model + [("direction", "output")])
                .increment(by: entry.outputTokens)
        }
        if entry.characters > 0 {
            Counter(label: "reparto_generation_characters_total", dimensions: model + [("capability", entry.capability)])
                .increment(by: entry.characters)
        }
        if entry.images > 0 {
            Counter(label: "reparto_generation_images_total", dimensions: model).increment(by: entry.images)
        }
        if entry.audioSeconds > 0 {
            FloatingPointCounter(label: "reparto_generation_audio_seconds_total", dimensions: model)
                .increment(by: entry.audioSeconds)
        }
    }
}
