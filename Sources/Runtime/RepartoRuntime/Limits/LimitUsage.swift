import Foundation

/// A limit and its current use, as `reparto limit list` and the dashboard show it.
public struct LimitUsage: Sendable, Equatable {
    /// The definition and its buckets, brought up to the moment of reading.
    public var gate: LimitGate
    /// Its jobs deferred and waiting to run.
    public var waiting: Int
    /// When it was read (the database's clock).
    public var now: Date

    public var spec: LimitSpec { gate.spec }
    public var running: Int { gate.running }
    /// Whether a provider's "retry after" blocks it now.
    public var blocked: Bool { gate.blockedUntil.map { $0 > now } ?? false }
}
