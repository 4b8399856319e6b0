import Foundation
import Postgres

/// All SQL of the job runtime that names the `jobs`, `productions` and `workers` tables, as
/// blocking functions on a connection the caller owns. One file per caller:
/// `JobStore+Producer` (JobClient), `+Relay` (OutboxRelay), `+Worker` (Worker), `+Coordinator`
/// (Coordinator), `+Control` (cancel and retry), `+Lookups` (reads for clients, metrics and
/// production types; ``ProductionJobs`` is their public face).
///
/// Every statement is parameterized; batches go through `unnest` of array parameters, so one
/// round trip carries hundreds of jobs. Which states a statement selects or sets comes from
/// ``JobLifecycle`` (its `sql…` fragments), the one documented place of the lifecycle rules.
enum JobStore {
    static let outboxChannel = "reparto_outbox"
    static let progressChannel = "reparto_progress"

    /// `SET LOCAL` of each of `settings` (planner settings for the rest of the caller's
    /// transaction), as one string of statements built once by its caller.
    static func setLocal(_ settings: KeyValuePairs<String, String>) -> String {
        settings.map { "SET LOCAL \($0.key) TO \($0.value)" }.joined(separator: "; ")
    }

    /// `SET LOCAL … TO DEFAULT` of each of `settings`: ``setLocal(_:)`` undone for the rest of the transaction.
    static func resetLocal(_ settings: KeyValuePairs<String, String>) -> String {
        settings.map { "SET LOCAL \($0.key) TO DEFAULT" }.joined(separator: "; ")
    }

    /// Seconds as whole milliseconds for an `int4` column, clamped (a timeout of 1e300 s from a
    /// command line must not trap the process that stores it); non-finite or negative is 0.
    static func milliseconds(_ seconds: Double) -> Int32 {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return seconds * 1000 >= Double(Int32.max) ? Int32.max : Int32((seconds * 1000).rounded())
    }
}
