import Foundation
import Postgres
import RepartoConfiguration
import RepartoRuntime

/// `book-import.prune-cache`: prunes the shared `http_cache` by age and size
/// (``HTTPCachePolicy``: `REPARTO_HTTP_CACHE_MAX_AGE`, `REPARTO_HTTP_CACHE_MAX`) in short batches,
/// oldest first, as retention prunes finished jobs. It runs hourly on the schedule
/// ``scheduleName``, kept like the asset sweep's (``keepScheduled(_:client:)``, cadence
/// `REPARTO_HTTP_CACHE_PRUNE_EVERY`); an import creates the schedule when it is missing.
public struct HTTPCachePruneJob: JobParameters {
    /// The kind's name.
    public static let kind = "book-import.prune-cache"
    /// The book import's queue.
    public static let queue = "books"
    /// The schedule that runs it.
    public static let scheduleName = "reparto:http-cache-prune"
    /// How often: an interval (`30m`, `1h`, the default) or `never`.
    public static let everyVariable = "REPARTO_HTTP_CACHE_PRUNE_EVERY"

    /// Count only.
    public var dryRun: Bool

    /// A prune, or with `dryRun` a count of what it would remove.
    public init(dryRun: Bool = false) { self.dryRun = dryRun }

    private enum CodingKeys: String, CodingKey { case dryRun }

    /// `dryRun` may be left out (false).
    public init(from decoder: any Decoder) throws {
        dryRun = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Bool.self, forKey: .dryRun) ?? false
    }

    /// Registers the kind with the policy of this worker's configuration; a policy that does not
    /// parse fails each job with that reason.
    public static func register(in registry: JobRegistry, postgres: PostgresClient?, configuration: ConfigurationValues) {
        let configured = Result { () throws(RetentionError) -> HTTPCachePolicy in try HTTPCachePolicy(configuration: configuration) }
        registry.register(HTTPCachePruneJob.self, timeout: 1800) { parameters, context in
            guard let postgres else { throw JobError.permanent("\(kind) needs the database (this process has none)") }
            let policy: HTTPCachePolicy
            do { policy = try configured.get() } catch { throw JobError.permanent("\(kind): \(error)") }
            let report = try await postgres.withConnection { try HTTPCacheRows.prune(policy, dryRun: parameters.dryRun, on: $0) }
            context.logger.info("pruned the book services' cache", metadata: [
                "expired": "\(report.expired)", "evicted": "\(report.evicted)", "entries": "\(report.entries)", "bytes": "\(report.bytes)",
            ])
            return report
        }
    }

    /// The cadence `REPARTO_HTTP_CACHE_PRUNE_EVERY` asks for (nil text: the standard 1h); nil for `never`.
    /// - Throws: ``ScheduleError`` for a value that is not an interval.
    public static func cadence(every text: String?) throws(ScheduleError) -> ScheduleCadence? {
        if text?.trimmingCharacters(in: .whitespaces).lowercased() == "never" { return nil }
        return try ScheduleCadence.every(text ?? "1h")
    }

    /// Keeps the prune scheduled at `cadence`, or deletes the schedule for nil (what a
    /// coordinator does with the asset sweep's). A schedule with the same cadence is left alone,
    /// paused or not.
    public static func keepScheduled(_ cadence: ScheduleCadence?, client: JobClient) async throws {
        let existing = try await client.schedules().first { $0.name == scheduleName }
        guard let cadence else {
            if existing != nil { try await client.deleteSchedule(named: scheduleName) }
            return
        }
        guard existing?.definition.cadence != cadence else { return }
        try await client.addSchedule(ScheduleDefinition(name: scheduleName, cadence: cadence, HTTPCachePruneJob(), maxAttempts: 1))
    }

    /// Creates the hourly schedule when none of its name exists (an operator's cadence, pause or
    /// deletion with `never` elsewhere is not undone here, except that a deleted one comes back).
    public static func scheduleIfAbsent(client: JobClient) async throws {
        guard try await !client.schedules().contains(where: { $0.name == scheduleName }) else { return }
        try await client.addSchedule(ScheduleDefinition(name: scheduleName, cadence: try ScheduleCadence.every("1h"), HTTPCachePruneJob(),
                                                        maxAttempts: 1))
    }
}
