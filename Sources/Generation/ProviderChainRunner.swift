import Foundation
import Jobs
import Providers

/// Runs one job's work along its fallback chain (``FallbackChain``): each provider in turn,
/// skipping disabled ones, until one answers; records which answered and why the others did not.
struct ProviderChainRunner: Sendable {
    let directory: GenerationProviderDirectory?

    /// What the chain produced, from which provider, after which failures.
    struct Answer<T: Sendable>: Sendable {
        var value: T
        var provider: String
        var failures: [String]
    }

    /// Calls `body` with each provider id of `chain` in order.
    /// - Throws: ``JobError/retryAt(_:reason:)`` for a 429 (or 5xx) with Retry-After that ends the
    ///   attempt; the ``ProviderError`` itself for another retryable failure that ends it;
    ///   ``JobError/permanent(_:)`` naming every provider's failure when none answered.
    func run<T: Sendable>(_ chain: [String], context: JobContext, now: @Sendable () -> Date = Date.init,
                          _ body: (String) async throws -> T) async throws -> Answer<T> {
        guard !chain.isEmpty else { throw JobError.permanent("no provider given") }
        var failures: [String] = []
        for id in chain {
            do {
                if let directory, try await !directory.isEnabled(id) { throw ProviderError.disabled(provider: id) }
                let value = try await body(id)
                return Answer(value: value, provider: id, failures: failures)
            } catch let error as ProviderError {
                if error.isAuthenticationFailure, let directory {
                    do { try await directory.markUnconfigured(id) } catch {
                        context.logger.warning("could not mark provider \(id) unconfigured: \(error)")
                    }
                }
                switch FallbackChain.step(after: error, attempt: context.attempt, maxAttempts: context.maxAttempts) {
                case .retryLater: throw Self.jobError(for: error, now: now())
                case .next:
                    context.logger.info("provider failed, trying the next", metadata: ["provider": "\(id)", "error": "\(error)"])
                    failures.append("\(id): \(error)")
                }
            }
        }
        throw JobError.permanent("no provider answered: " + failures.joined(separator: "; "))
    }

    /// A failure with Retry-After becomes "retry at" (no attempt spent, the provider's limit held
    /// back until then); any other stays itself (retried with backoff when retryable).
    static func jobError(for error: ProviderError, now: Date) -> any Error {
        guard let after = error.retryAfter else { return error }
        return JobError.retryAt(now.addingTimeInterval(max(0, after)), reason: "\(error)")
    }
}

// ProviderError already says whether a retry can help; this lets the worker's retry policy see it.
extension ProviderError: RetryableError {}
