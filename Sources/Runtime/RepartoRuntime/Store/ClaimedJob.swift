import Foundation

/// A job as a worker claimed it: its row after the claim moved it to `running`.
public struct ClaimedJob: Sendable, Equatable {
    public var id: UUID
    public var kind: String
    /// The job's parameters (JSON).
    public var parameters: Data
    /// This attempt's number (1 for the first); completions are fenced by it.
    public var attempt: Int
    public var maxAttempts: Int
    public var productionID: UUID?
    public var stage: String?
    /// The job's own timeout in seconds, if it has one (else the kind's).
    public var timeout: Double?
    /// Times its handler already asked to retry at a later instant (see ``JobError/retryAt(_:reason:)``).
    public var rateLimited: Int
    /// The limit it was admitted under (its own `limit_key`), if any.
    public var limitKey: String?
    /// The error its previous attempt (or hand-over to another limit) left, if any.
    public var lastError: String?

    public init(id: UUID, kind: String, parameters: Data, attempt: Int, maxAttempts: Int,
                productionID: UUID? = nil, stage: String? = nil, timeout: Double? = nil, rateLimited: Int = 0,
                limitKey: String? = nil, lastError: String? = nil) {
        self.limitKey = limitKey
        self.lastError = lastError
        self.rateLimited = rateLimited
        self.id = id
        self.kind = kind
        self.parameters = parameters
        self.attempt = attempt
        self.maxAttempts = maxAttempts
        self.productionID = productionID
        self.stage = stage
        self.timeout = timeout
    }
}
