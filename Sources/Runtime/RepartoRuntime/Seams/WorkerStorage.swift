import Foundation
import Metrics
import Postgres
import Threading

/// What a worker reads and writes about jobs: PostgreSQL in production (``PostgresWorkerStorage``),
/// an in-memory table in unit tests. The rules an implementation must keep are ``JobLifecycle``'s:
/// ``JobLifecycle/canClaim(_:due:ownerAlive:)`` for claims, ``JobLifecycle/complete(state:attempts:outcome:attempt:)``
/// (fencing) for completions, ``JobLifecycle/ownership(state:workerID:me:cancelRequested:)`` for heartbeats.
public protocol WorkerStorage: Sendable {
    /// Claims the delivered jobs that may run now under no limit and no pause, and returns them
    /// with the rest: finished, cancelled or running elsewhere (nothing to claim), or subject to
    /// a pause or a limit (for ``claimControlled(_:workerID:)``). What it claimed is committed
    /// whatever happens to the rest.
    func claim(_ ids: [UUID], workerID: String) async throws -> (claimed: [ClaimedJob], rest: [UUID])
    /// ``claim(_:workerID:)`` on the calling thread, which it blocks: the worker calls it on its
    /// transport's thread as deliveries arrive (never on Swift's cooperative pool). Returns nil
    /// when it cannot claim without waiting; the worker then claims through ``claim(_:workerID:)``,
    /// which it also does when this throws.
    func claimOnArrival(_ ids: [UUID], workerID: String) throws -> (claimed: [ClaimedJob], rest: [UUID])?
    /// Decides the jobs ``claim(_:workerID:)`` left: parks paused ones, admits or puts off limited
    /// ones; returns those admitted (claimed), and the suspects (``JobLifecycle/runsAlone(crashes:)``)
    /// it left waiting because the worker does not run them `alone`. The others are left out.
    func claimControlled(_ ids: [UUID], workerID: String, alone: Bool) async throws -> (claimed: [ClaimedJob], suspects: [UUID])
    /// Commits outcomes (plain successes may commit on their own, before one transaction for the
    /// rest); returns those that applied (not fenced out), after effect failures were turned into
    /// failures.
    func complete(_ outcomes: [JobOutcome]) async throws -> [JobOutcome]
    /// Commits plain successes (``JobStore/completesAlone(_:)``) on the calling thread, which it
    /// blocks: the worker calls it on its completion thread (never on Swift's cooperative pool).
    /// Returns those that applied; the worker commits the others (under a limit, fenced out)
    /// through ``complete(_:)``. Returns nil when it cannot commit without waiting; the worker
    /// then commits them all through ``complete(_:)``, as it does when this throws.
    func completeOnThread(_ outcomes: [JobOutcome]) throws -> [JobOutcome]?
    /// Records the worker alive; returns its running jobs to cancel and the local jobs it lost.
    /// `held`: per routing key, the deliveries the worker holds unclaimed (``Worker``'s pending ones and
    /// the suspects waiting to run alone).
    ///
    /// Blocking: ``Worker`` calls it on its heartbeat thread, outside Swift's cooperative pool, so
    /// handlers that keep the pool busy cannot make a live worker look dead.
    func heartbeat(_ worker: WorkerIdentity, succeeded: Int, failed: Int, inFlight: Int,
                   local: [UUID], held: [String: Int]) throws -> (cancel: [UUID], lost: [UUID])
    /// Records the worker stopped, with its final counts.
    func markStopped(workerID: String, succeeded: Int, failed: Int) async throws
    /// Records what the coordinator's rescue needs to know of the kinds this worker runs (their
    /// crash limits), when the worker starts.
    func recordKinds(_ kinds: [(kind: String, crashLimit: Int)]) async throws
    /// Readies what the first claim and completion use (connections, their statements), before
    /// the worker consumes, so its first jobs do not wait for them.
    func prepare(workerID: String) async throws
}

extension WorkerStorage {
    /// Storage without a coordinator (in-memory tests) has nothing to record.
    public func recordKinds(_ kinds: [(kind: String, crashLimit: Int)]) async throws {}
    /// Storage without connections (in-memory tests) has nothing to ready.
    public func prepare(workerID: String) async throws {}
    /// Storage that cannot commit on the caller's thread leaves every outcome to ``complete(_:)``.
    public func completeOnThread(_ outcomes: [JobOutcome]) throws -> [JobOutcome]? { nil }
}

/// PostgreSQL as ``WorkerStorage``: ``JobStore``'s statements on a `PostgresClient`'s connections.
public struct PostgresWorkerStorage: WorkerStorage {
    public let postgres: PostgresClient
    /// Kind → the limit its jobs run under when they name none (``JobRegistry/defaultLimits``).
    public let defaultLimits: [String: String]
    /// The heartbeat's own connection, used on the worker's heartbeat thread: behind claims and
    /// completions in the shared pool, a busy worker's heartbeat came late enough for the
    /// coordinator to take the worker for dead and run its jobs twice.
    private let heartbeats: BlockingPostgresConnection
    /// The claims' own connection. Its session has ``JobStore/claimSessionSettings``: claims do not wait
    /// for their WAL flush (about 3 ms here, in every job's path: the completion's commit, which
    /// does wait, flushes the claim before any ack, and a claim lost in a database crash leaves the
    /// job queued, its message unacked and redelivered), and take the generic plan (planning a
    /// claim cost more than running it, and the plan is the same, the primary key, whatever the
    /// ids), never a sequential scan.
    private let claims: PostgresClient
    /// The claims' connection for the worker's transport thread (``claimOnArrival(_:workerID:)``),
    /// with the same session settings: a claim made there skips two thread hand-offs (to the
    /// pool's connection thread and back).
    private let arrivals: BlockingPostgresConnection
    /// The connection that commits plain successes (``JobStore/completesAlone(_:)``), one
    /// statement each batch outside a transaction block: its session has
    /// ``JobStore/completionSessionSettings`` (`SET LOCAL` needs a transaction). The worker's
    /// completion thread uses it directly (``completeOnThread(_:)``), ``complete(_:)`` from a
    /// blocking-work thread. The other outcomes commit in a transaction on the shared pool,
    /// where their effects run.
    private let completions: BlockingPostgresConnection
    private let progress: ProgressNotifier

    public init(postgres: PostgresClient, defaultLimits: [String: String] = [:]) {
        self.postgres = postgres
        self.defaultLimits = defaultLimits
        heartbeats = BlockingPostgresConnection(configuration: postgres.configuration)
        claims = Self.ownConnection(postgres, settings: JobStore.claimSessionSettings)
        arrivals = BlockingPostgresConnection(configuration: claims.configuration)
        completions = BlockingPostgresConnection(configuration: Self.ownConfiguration(postgres, settings: JobStore.completionSessionSettings))
        progress = ProgressNotifier(postgres: postgres)
    }

    /// A connection of the worker's own, to the pool's database, whose session also has `settings`.
    private static func ownConnection(_ postgres: PostgresClient, settings: [String: String]) -> PostgresClient {
        PostgresClient(configuration: ownConfiguration(postgres, settings: settings), maxConnections: 1)
    }

    /// The pool's configuration, whose sessions also have `settings`.
    private static func ownConfiguration(_ postgres: PostgresClient, settings: [String: String]) -> PostgresConfiguration {
        var configuration = postgres.configuration
        configuration.sessionSettings.merge(settings) { _, own in own }
        return configuration
    }

    public func claim(_ ids: [UUID], workerID: String) async throws -> (claimed: [ClaimedJob], rest: [UUID]) {
        let defaults = defaultLimits
        // One statement on the claims' own connection, outside any transaction block: a round
        // trip instead of three (BEGIN with the settings, the claim, COMMIT).
        return try await claims.withConnection { connection in
            try JobStore.claimFast(ids, workerID: workerID, defaultLimits: defaults, on: connection)
        }
    }

    @available(*, noasync)
    public func claimOnArrival(_ ids: [UUID], workerID: String) throws -> (claimed: [ClaimedJob], rest: [UUID])? {
        let defaults = defaultLimits
        return try arrivals.run { try JobStore.claimFast(ids, workerID: workerID, defaultLimits: defaults, on: $0) }
    }

    /// Opens the claims' and the completions' connections and runs their statements on no job:
    /// a fresh worker's first claim otherwise waited for a connection, a prepared statement's
    /// plan and its backend's first reads of the jobs table and the rollups' trigger (its first
    /// jobs took 30–90 ms in a benchmark at 1,500 jobs/s, the rest a median of 8).
    public func prepare(workerID: String) async throws {
        let defaults = defaultLimits
        _ = try await claims.withConnection { try JobStore.claimFast([], workerID: workerID, defaultLimits: defaults, on: $0) }
        let arrivals = self.arrivals
        _ = try await BlockingWork.run {
            try arrivals.run { try JobStore.claimFast([], workerID: workerID, defaultLimits: defaults, on: $0) }
        }
        let completions = self.completions
        try await BlockingWork.run { try completions.run { try JobStore.prepareCompletions(on: $0) } }
    }

    public func claimControlled(_ ids: [UUID], workerID: String, alone: Bool) async throws -> (claimed: [ClaimedJob], suspects: [UUID]) {
        let defaults = defaultLimits
        let (claimed, deferred, suspects) = try await claims.withTransaction { connection in
            try JobStore.claimControlled(ids, workerID: workerID, defaultLimits: defaults, alone: alone, on: connection)
        }
        if deferred > 0 { Counter(label: "reparto_jobs_deferred_total").increment(by: deferred) }
        return (claimed, suspects)
    }

    /// Plain successes first, in one statement; then, in one transaction, the other outcomes and
    /// the successes that statement left (under a limit, or fenced out). If that transaction fails,
    /// the successes stay committed: the caller's retry finds them fenced out (no longer running)
    /// and leaves them out of what it returns, as it does when a commit's answer is lost.
    public func complete(_ outcomes: [JobOutcome]) async throws -> [JobOutcome] {
        var final: [JobOutcome] = []
        var progressed: Set<String> = []
        var rest = outcomes.filter { !JobStore.completesAlone($0) }
        let alone = outcomes.filter(JobStore.completesAlone)
        if !alone.isEmpty {
            let completions = self.completions
            let done = try await BlockingWork.run { [alone] in try completions.run { try JobStore.completeSucceeded(alone, on: $0) } }
            final = done.applied
            progressed = done.progressed
            let applied = Set(done.applied.map(\.id))
            rest += alone.filter { !applied.contains($0.id) }
        }
        if !rest.isEmpty {
            let done = try await postgres.withTransaction(settings: JobStore.completionPlanSettings) { [rest] in
                try JobStore.completeDeferringProgress(rest, genericPlansSet: true, on: $0)
            }
            final += done.outcomes
            progressed.formUnion(done.progressed)
        }
        progress.notify(progressed)
        return final
    }

    @available(*, noasync)
    public func completeOnThread(_ outcomes: [JobOutcome]) throws -> [JobOutcome]? {
        let done = try completions.run { try JobStore.completeSucceeded(outcomes, on: $0) }
        progress.notify(done.progressed)
        return done.applied
    }

    public func heartbeat(_ worker: WorkerIdentity, succeeded: Int, failed: Int, inFlight: Int,
                          local: [UUID], held: [String: Int]) throws -> (cancel: [UUID], lost: [UUID]) {
        try heartbeats.run {
            try JobStore.heartbeat(worker, succeeded: succeeded, failed: failed, inFlight: inFlight, local: local,
                                   held: held, on: $0)
        }
    }

    public func markStopped(workerID: String, succeeded: Int, failed: Int) async throws {
        do {
            try await postgres.withConnection { try JobStore.markStopped(workerID: workerID, succeeded: succeeded, failed: failed, on: $0) }
        } catch {
            await closeOwnConnections()
            throw error
        }
        await closeOwnConnections()
    }

    /// The heartbeat's, the claims' and the completions' connections (the shared pool is its
    /// owner's to close).
    private func closeOwnConnections() async {
        let (heartbeats, arrivals, completions) = (self.heartbeats, self.arrivals, self.completions)
        _ = try? await BlockingWork.run {
            heartbeats.close()
            arrivals.close()
            completions.close()
        }
        await claims.shutdown()
    }

    public func recordKinds(_ kinds: [(kind: String, crashLimit: Int)]) async throws {
        try await postgres.withConnection { try JobStore.recordKinds(kinds, on: $0) }
    }
}
