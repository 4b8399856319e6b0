import Foundation
import Speech

/// A value remembered until `lifetime` has passed since it was stored. Pure: the caller passes the
/// time, so expiry is testable without waiting.
public struct ExpiringMemo<Value: Sendable>: Sendable {
    /// How long a stored value stays fresh (zero: never fresh, every read misses).
    public let lifetime: Duration
    private var entry: (value: Value, expires: ContinuousClock.Instant)?

    public init(lifetime: Duration) {
        self.lifetime = lifetime
    }

    /// The stored value while it is fresh at `now`, else nil.
    public func value(at now: ContinuousClock.Instant) -> Value? {
        guard let entry, now < entry.expires else { return nil }
        return entry.value
    }

    /// Stores `value`, fresh until `now + lifetime`.
    public mutating func store(_ value: Value, at now: ContinuousClock.Instant) {
        entry = (value, now + lifetime)
    }

    /// Forgets the value.
    public mutating func clear() {
        entry = nil
    }
}

/// The `speech.synthesize` job's view of `voice_providers`: records this worker's providers once, and
/// answers "may this provider be used?" from a short in-process memo of the `enabled` flags, so
/// a batch does not query the database per item (one small query per `lifetime` per worker).
///
/// Without a directory (no database) every provider is enabled. A provider without a row (never
/// recorded) is enabled, as the column's default says. An operator's switch reaches a worker
/// within `lifetime` (default 5 s).
public actor VoiceProviderGate {
    /// Where the flags live; nil: no database, everything enabled.
    public nonisolated let directory: VoiceProviderDirectory?
    /// The providers this worker records.
    public nonisolated let registry: VoiceProviderRegistry
    private var flags: ExpiringMemo<[String: Bool]>
    private var refreshing: Task<[String: Bool], any Error>?
    private var recording: Task<Void, any Error>?

    public init(directory: VoiceProviderDirectory?, registry: VoiceProviderRegistry, lifetime: Duration = .seconds(5)) {
        self.directory = directory
        self.registry = registry
        self.flags = ExpiringMemo(lifetime: lifetime)
    }

    /// Records the registry's providers in `voice_providers`, once: concurrent and later calls
    /// share the first successful recording; after a failure the next call tries again.
    public func recordProviders() async throws {
        guard let directory else { return }
        if let recording { return try await recording.value }
        let registry = self.registry
        let task = Task { try await directory.record(registry) }
        recording = task
        do { try await task.value } catch {
            if recording == task { recording = nil }
            throw error
        }
    }

    /// True unless an operator disabled provider `id`. Reads the flags at most once per lifetime
    /// (concurrent callers share one query); records the providers first if that has not succeeded yet.
    /// - Throws: a ``PostgresError`` when the database cannot be read (the job is retried).
    public func isEnabled(_ id: String) async throws -> Bool {
        guard let directory else { return true }
        if let fresh = flags.value(at: .now) { return fresh[id] ?? true }
        let task: Task<[String: Bool], any Error>
        if let refreshing { task = refreshing } else {
            try await recordProviders()
            if let fresh = flags.value(at: .now) { return fresh[id] ?? true }  // another caller refreshed meanwhile
            if let refreshing { task = refreshing } else {
                task = Task { try await directory.enabledFlags() }
                refreshing = task
            }
        }
        defer { if refreshing == task { refreshing = nil } }
        let current = try await task.value
        flags.store(current, at: .now)
        return current[id] ?? true
    }

    /// Forgets the remembered flags, so the next check reads the table.
    public func forget() {
        flags.clear()
    }
}
