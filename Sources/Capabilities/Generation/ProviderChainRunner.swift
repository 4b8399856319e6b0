import Foundation
import RepartoRuntime
import Providers

/// Runs one job's work along its fallback chain (``FallbackChain``): each provider in turn,
/// skipping disabled ones, until one answers; records which answered and why the others did not.
///
/// Every call goes through its provider's limit. A job is admitted under `provider:FIRST` (its
/// ``GenerateTextJob/limitKey``); when the chain moves on to another provider, the job is handed
/// over (``JobError/continueUnder(limit:reason:)``): queued again at once, the attempt not
/// counted, and admitted under `provider:NEXT` before that provider is called. Admitted under
/// the limit of a later provider of its chain, the job starts there: the providers before it
/// failed already (they are recorded as such).
struct ProviderChainRunner: Sendable {
    let directory: GenerationProviderDirectory?

    /// What the chain produced, from which provider, after which failures.
    struct Answer<T: Sendable>: Sendable {
        var value: T
        var provider: String
        var failures: [String]
    }

    /// The limit key of a provider.
    static func limitKey(_ provider: String) -> String { "provider:\(provider)" }

    /// Where a chain starts for a job admitted under `limitKey`: at the provider whose limit it
    /// is (the job was handed over to it), else at the first.
    static func start(of chain: [String], limitKey: String?) -> Int {
        guard let limitKey else { return 0 }
        return chain.firstIndex { Self.limitKey($0) == limitKey } ?? 0
    }

    /// The limit to hand the job over to after `failed` (at `index`) did not answer: the next
    /// provider's, when the job runs under `failed`'s own limit and the next is another provider.
    static func handOver(chain: [String], after index: Int, limitKey: String?) -> String? {
        guard index + 1 < chain.count, let limitKey, limitKey == Self.limitKey(chain[index]), chain[index + 1] != chain[index] else {
            return nil
        }
        return Self.limitKey(chain[index + 1])
    }

    /// The failures of the providers a handed-over job skips: each one's line of the hand-over's
    /// reason (the job's previous error), or a note when that is gone (a later attempt).
    static func earlierFailures(_ skipped: ArraySlice<String>, previousError: String?, limitKey: String?) -> [String] {
        let lines = previousError?.split(separator: "\n").map(String.init) ?? []
        return skipped.map { id in
            lines.first { $0.hasPrefix("\(id): ") } ?? "\(id): failed before the job moved on to \(limitKey ?? "the next provider")"
        }
    }

    /// Calls `body` with each provider id of `chain` in order.
    /// - Throws: ``JobError/retryAt(_:reason:)`` for a 429 (or 5xx) with Retry-After that ends the
    ///   attempt; the ``ProviderError`` itself for another retryable failure that ends it;
    ///   ``JobError/continueUnder(limit:reason:)`` to move on to the next provider under its own
    ///   limit; ``JobError/permanent(_:)`` naming every provider's failure when none answered.
    func run<T: Sendable>(_ chain: [String], context: JobContext, now: @Sendable () -> Date = Date.init,
                          _ body: (String) async throws -> T) async throws -> Answer<T> {
        guard !chain.isEmpty else { throw JobError.permanent("no provider given") }
        let first = Self.start(of: chain, limitKey: context.limitKey)
        var failures = Self.earlierFailures(chain[..<first], previousError: context.previousError, limitKey: context.limitKey)
        for index in first..<chain.count {
            let id = chain[index]
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
                    failures.append("\(id): " + "\(error)".replacingOccurrences(of: "\n", with: " "))
                    if let limit = Self.handOver(chain: chain, after: index, limitKey: context.limitKey) {
                        // One failure a line: the resumed attempt reads them back (`earlierFailures`).
                        throw JobError.continueUnder(limit: limit, reason: failures.joined(separator: "\n"))
                    }
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
