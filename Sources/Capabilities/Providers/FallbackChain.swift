/// The rule of a fallback chain (`--text-provider anthropic,openai`): which failures move on to
/// the next provider within one attempt, and which end the attempt so the job is retried.
///
/// A permanent failure (auth, refusal, an unconfigured or disabled provider, a rejected request)
/// moves on at once. A retryable one (429, 5xx, timeouts, truncated or malformed bodies) ends the
/// attempt — the job is retried, from the first provider, at the provider's Retry-After or with
/// backoff — except on the job's last attempt, when the provider is exhausted and the next one
/// is tried. Pure: unit-tested.
public enum FallbackChain {
    /// What to do after a provider failed.
    public enum Step: Equatable, Sendable {
        /// Try the next provider of the chain (or fail with every failure when none is left).
        case next
        /// Stop here and throw this error: the job is retried later.
        case retryLater
    }

    /// The step after `error` on attempt `attempt` of `maxAttempts`.
    public static func step(after error: ProviderError, attempt: Int, maxAttempts: Int) -> Step {
        if !error.isRetryable { return .next }
        return attempt >= maxAttempts ? .next : .retryLater
    }
}
