import Foundation
import Metrics
import Postgres

/// What a worker reads and writes about jobs: PostgreSQL in production (``PostgresWorkerStorage``),
/// an in-memory table in unit tests. The rules an implementation must keep are ``JobLifecycle``'s:
/// ``JobLifecycle/canClaim(_:due:ownerAlive:)`` for claims, ``JobLifecycle/complete(state:attempts:outcome:attempt:)``
/// (fencing) for completions, ``JobLifecycle/ownership(state:workerID:me:cancelRequested:)`` for heartbeats.
public protocol WorkerStorage: Sendable {
    /// Claims the delivered jobs that may run now; others (finished, cancelled, running elsewhere,
    /// paused, or put off by their limit) are left out.
    func claim(_ ids: [UUID], workerID: String) async throws -> [ClaimedJob]
    /// Commits outcomes in one transaction; returns those that applied (not fenced out), after
    /// effect failures were turned into failures.
    func complete(_ outcomes: [JobOutcome]) async throws -> [JobOutcome]
    /// Records the worker alive; returns its running jobs to cancel and the local jobs it lost.
    /// `held`: per routing key, the deliveries the worker holds unclaimed (``Worker``'s pending ones).
    func heartbeat(_ worker: WorkerIdentity, succeeded: Int, failed: Int, inFlight: Int,
                   local: [UUID], held: [String: Int]) async throws -> (cancel: [UUID], lost: [UUID])
    /// Records the worker stopped, with its final counts.
    func markStopped(workerID: String, succeeded: Int, failed: Int) async throws
    /// Records what the coordinator's rescue needs to know of the kinds this worker runs (their
    /// crash limits), when the worker starts.
    func recordKinds(_ kinds: [(kind: String, crashLimit: Int)]) async throws
}

extension WorkerStorage {
    /// Storage without a coordinator (in-memory tests) has nothing to record.
    public func recordKinds(_ kinds: [(kind: String, crashLimit: Int)]) async throws {}
}

/// PostgreSQL as ``WorkerStorage``: ``JobStore``'s statements on a `PostgresClient`'s connections.
public struct PostgresWorkerStorage: WorkerStorage {
    public let postgres: PostgresClient
    /// Kind → the limit its jobs run under when they name none (``JobRegistry/defaultLimits``).
    public let defaultLimits: [String: String]
    /// The heartbeat's own connection: behind claims and completions in the shared pool, a busy
    /// worker's heartbeat came late enough for the coordinator to take the worker for dead and
    /// run its jobs twice.
    private let heartbeats: PostgresClient
    private let progress: ProgressNotifier

    public init(postgres: PostgresClient, defaultLimits: [String: String] = [:]) {
        self.postgres = postgres
        self.defaultLimits = defaultLimits
        heartbeats = PostgresClient(configuration: postgres.configuration, maxConnections: 1)
        progress = ProgressNotifier(postgres: postgres)
    }

    public func claim(_ ids: [UUID], workerID: String) async throws -> [ClaimedJob] {
        let defaults = defaultLimits
        // The claim does not wait for its WAL flush (about 3 ms here, in every job's path): the
        // completion's commit, which does wait, flushes the claim before any ack, and a claim
        // lost in a database crash leaves the job queued, its message unacked and redelivered.
        // Its statements take the generic plan: planning a claim cost more than running it, and
        // the plan is the same (the primary key) whatever the ids.
        // The settings go with the BEGIN: a round trip each cost the database more than the claim.
        let (claimed, deferred) = try await postgres.withTransaction(settings: JobStore.claimSettings) { connection in
            try JobStore.claim(ids, workerID: workerID, defaultLimits: defaults, on: connection)
        }
        if deferred > 0 { Counter(label: "reparto_jobs_deferred_total").increment(by: deferred) }
        return claimed
    }

    public func complete(_ outcomes: [JobOutcome]) async throws -> [JobOutcome] {
        let (final, progressed) = try await postgres.withTransaction(settings: JobStore.idKeyedPlanSettings) {
            try JobStore.completeDeferringProgress(outcomes, genericPlansSet: true, on: $0)
        }
        await progress.notify(progressed)
        return final
    }

    public func heartbeat(_ worker: WorkerIdentity, succeeded: Int, failed: Int, inFlight: Int,
                          local: [UUID], held: [String: Int]) async throws -> (cancel: [UUID], lost: [UUID]) {
        try await heartbeats.withConnection {
            try JobStore.heartbeat(worker, succeeded: succeeded, failed: failed, inFlight: inFlight, local: local,
                                   held: held, on: $0)
        }
    }

    public func markStopped(workerID: String, succeeded: Int, failed: Int) async throws {
        do {
            try await postgres.withConnection { try JobStore.markStopped(workerID: workerID, succeeded: succeeded, failed: failed, on: $0) }
        } catch {
            await heartbeats.shutdown()
            throw error
        }
        await heartbeats.shutdown()
    }

    public func recordKinds(_ kinds: [(kind: String, crashLimit: Int)]) async throws {
        try await postgres.withConnection { try JobStore.recordKinds(kinds, on: $0) }
    }
}
