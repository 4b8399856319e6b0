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
}
