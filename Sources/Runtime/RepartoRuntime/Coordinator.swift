import AMQP
import Foundation
import Logging
import Postgres
import RepartoConfiguration
import ServiceLifecycle
import Synchronization
import Threading

/// How the coordinator behaves.
public struct CoordinatorSettings: Sendable {
    /// Seconds between scans when no notification arrives.
    public var tick: Double
    /// What the leader prunes, and how often (seconds between passes; each pass removes at most
    /// ``pruneBatches`` batches of 500 rows per class, the rest waits for the next pass).
    public var retention: RetentionPolicy
    public var pruneInterval: Double
    public var pruneBatches: Int
    /// Seconds a finished job stays in `jobs` before it moves to `job_history` (a production's
    /// jobs only once it is finished): `REPARTO_ARCHIVE_AFTER`, default 10 minutes.
    public var archiveAfter: Double
    /// `REPARTO_ARCHIVE_AFTER`.
    public static let archiveAfterVariable = "REPARTO_ARCHIVE_AFTER"
    /// Ten minutes.
    public static let standardArchiveAfter = 600.0
    public init(tick: Double = 1, retention: RetentionPolicy = .standard, pruneInterval: Double = 60, pruneBatches: Int = 10,
                archiveAfter: Double = CoordinatorSettings.standardArchiveAfter) {
        self.tick = tick
        self.retention = retention
        self.pruneInterval = pruneInterval
        self.pruneBatches = pruneBatches
        self.archiveAfter = archiveAfter
    }

    /// The archive age `values` set (``archiveAfterVariable``), else ``standardArchiveAfter``.
    /// - Throws: ``RetentionError`` naming the variable when it does not parse (`never` keeps
    ///   every finished job in `jobs`).
    public static func archiveAfter(configuration values: ConfigurationValues) throws(RetentionError) -> Double {
        guard let text = values[archiveAfterVariable] else { return standardArchiveAfter }
        return try RetentionPolicy.seconds(text, setting: archiveAfterVariable)
    }
}

/// The coordinator: fan-in between stages, production completion, rescue of jobs whose worker
/// stopped heartbeating, and firing schedules (``ScheduleTicker``); it also runs an outbox relay.
///
/// Any number may run: the one holding the PostgreSQL advisory lock leads, the others wait to
/// take over. Each stage transition also locks the production row and checks its stage, so a
/// transition happens exactly once even across a leadership change. Restartable at any time:
/// all of its state is in the database.
public final class Coordinator: Service, Sendable {
    /// "reparto" plus a hash of the namespace: the coordinators of each namespace elect their own
    /// leader (one constant key let one namespace's leader starve every other of stage transitions).
    static func leaderLockKey(namespace: String) -> Int64 {
        // The default namespace keeps the key coordinators had before namespaces got their own.
        let base: Int64 = 0x7265_7061_7274_6f
        return namespace.isEmpty ? base : LeaderLock.key(base: base, namespace: namespace)
    }

    /// Failed attempts at advancing one production before it is finished with the last error.
    static let advanceAttempts = 3

    private let postgres: PostgresConfiguration
    private let relay: OutboxRelay
    private let plans: [String: any ProductionPlan]
    private let settings: CoordinatorSettings
    private let logger: Logger
    private let thread = OwnedThread(name: "reparto-coord")
    private let leaderLockKey: Int64
    /// Production id → failed attempts at advancing it (only the coordinator's thread uses it).
    private let advanceFailures = Mutex<[UUID: Int]>([:])
    /// The coordinator's and its relay's connections, for readiness.
    public let health = ConnectionHealth()

    public init(postgres: PostgresConfiguration, amqp: AMQPConfiguration, namespace: String = "",
                plans: [any ProductionPlan] = [], settings: CoordinatorSettings = CoordinatorSettings(), logger: Logger) {
        self.postgres = postgres
        self.leaderLockKey = Self.leaderLockKey(namespace: namespace)
        health.require(.coordinatorDatabase)
        self.relay = OutboxRelay(postgres: postgres, amqp: amqp, namespace: namespace, logger: logger, health: health)
        var table: [String: any ProductionPlan] = ["batch": BatchPlan()]
        for plan in plans { table[plan.name] = plan }
        self.plans = table
        self.settings = settings
        self.logger = logger
    }

    public func run() async throws {
        relay.start()
        thread.start { [self] owner in loop(owner) }
        logger.info("coordinator started", metadata: ["plans": "\(plans.keys.sorted().joined(separator: ","))"])
        try? await gracefulShutdown()
        await thread.stop()
        await relay.stop()
        logger.info("coordinator stopped")
    }

    /// Seconds between two of the leader's passes at least (stage transitions, schedules). A pass
    /// looks for stages without active jobs, which under a flat-out run walks index entries of the
    /// jobs just finished: 2-5 ms a pass, and at one pass per 10 ms (about 56 a second there) a
    /// tenth to a quarter of a core of the database. A stage transition waits 50 ms at most.
    static let minimumPassInterval = 0.05

    private func loop(_ owner: OwnedThread) {
        var connection: PostgresConnection?
        var leading = false
        var backoff = Backoff(initial: 0.1, maximum: 5)
        // Workers go stale only after missed heartbeats (seconds), so rescue runs once a tick,
        // not on every progress notification (one per committed batch of jobs).
        var nextRescue = ContinuousClock.now
        var schedules = ScheduleTicker(tick: settings.tick)
        var nextPrune = ContinuousClock.now
        var nextHousekeeping = ContinuousClock.now
        var lastPass = ContinuousClock.now - .seconds(1)
        while !owner.isStopping {
            do {
                if connection == nil {
                    let fresh = try PostgresConnection.connect(postgres)
                    try fresh.listen(JobStore.progressChannel)
                    connection = fresh
                    leading = false
                    health.markUp(.coordinatorDatabase)
                }
                guard let db = connection else { continue }
                if !leading {
                    leading = try JobStore.tryLead(lockKey: leaderLockKey, on: db)
                    if leading { logger.info("coordinator is the leader") }
                }
                if leading {
                    // Every committed batch of every worker notifies: at a thousand jobs a second
                    // a pass each cost more database time than the jobs. Passes coalesce to at
                    // most one per `minimumPassInterval`, which is all a stage transition waits.
                    let since = (ContinuousClock.now - lastPass) / .seconds(1)
                    if since < Self.minimumPassInterval { owner.sleep(Self.minimumPassInterval - since) }
                    lastPass = ContinuousClock.now
                    if ContinuousClock.now >= nextRescue {
                        nextRescue = ContinuousClock.now + .seconds(settings.tick)
                        let rescued = try JobStore.rescueOrphans(on: db)
                        if rescued > 0 { logger.warning("rescued jobs of stale workers", metadata: ["count": "\(rescued)"]) }
                    }
                    try advanceStages(on: db)
                    try schedules.fireDue(on: db, logger: logger)
                    if ContinuousClock.now >= nextHousekeeping {
                        nextHousekeeping = ContinuousClock.now + .seconds(settings.tick)
                        try keepHistory(on: db)
                    }
                    if ContinuousClock.now >= nextPrune {
                        nextPrune = ContinuousClock.now + .seconds(settings.pruneInterval)
                        try prune(on: db)
                    }
                }
                // The leader wakes for the soonest schedule tick, at most a tick from now.
                _ = try db.waitForNotifications(timeout: leading ? schedules.waitTimeout() : settings.tick)
                backoff.reset()
            } catch {
                logger.warning("coordinator lost its database connection, reconnecting", metadata: ["error": "\(error)"])
                connection?.close()
                connection = nil
                leading = false
                health.markDown(.coordinatorDatabase)
                owner.sleep(backoff.next())
            }
        }
        connection?.close() // releases the advisory lock
    }

    /// A few batches of retention per pass: a large backlog (a first run, a lowered retention)
    /// drains over several passes instead of holding the leader.
    @available(*, noasync)
    private func prune(on db: PostgresConnection) throws {
        var total = PruneReport()
        for _ in 0..<settings.pruneBatches {
            let step = try JobStore.pruneBatch(settings.retention, batch: 500, dryRun: false, on: db)
            PruneReport.record(step)
            total = total + step
            if step.jobs < 500 && step.productions < 500 && step.workers < 500 && step.historyJobs < 500 { break }
        }
        guard !total.isEmpty else { return }
        logger.info("pruned finished work past its retention", metadata: [
            "jobs": "\(total.jobs)", "productions": "\(total.productions)", "production_jobs": "\(total.productionJobs)",
            "workers": "\(total.workers)"])
    }

    /// Folds the rollups' deltas, then moves finished work to history: a few batches a tick, so
    /// `jobs` keeps up with a flat-out cluster without holding the leader.
    @available(*, noasync)
    private func keepHistory(on db: PostgresConnection) throws {
        _ = try JobStore.foldStats(on: db)
        guard settings.archiveAfter.isFinite else { return }
        for _ in 0..<settings.pruneBatches {
            guard try JobStore.archiveBatch(olderThan: settings.archiveAfter, on: db) >= JobStore.historyBatch else { break }
        }
    }

    @available(*, noasync)
    private func advanceStages(on db: PostgresConnection) throws {
        for candidate in try JobStore.stagesReadyToAdvance(on: db) {
            guard let plan = plans[candidate.plan] else {
                // Not retried: no pass of this coordinator will know the plan, and left running it
                // would stay at the head of every pass.
                try finishUnadvanceable(candidate.id, reason: "no production plan '\(candidate.plan)' is registered with this coordinator",
                                        on: db)
                continue
            }
            do {
                try db.transaction(settings: JobStore.stageProbePlanSettings) { connection in
                    guard let snapshot = try JobStore.lockProductionForAdvance(candidate.id, stage: candidate.stage, on: connection) else {
                        return
                    }
                    switch StageTransition.decide(try plan.advance(snapshot, on: connection), for: snapshot) {
                    case .move(let stage, let jobs):
                        try JobStore.moveProduction(snapshot.id, toStage: stage, on: connection)
                        _ = try JobStore.insert(jobs, on: connection)
                        logger.info("production advanced", metadata: [
                            "production_id": "\(snapshot.id)", "stage": "\(stage)", "jobs": "\(jobs.count)"])
                    case .finish(let withFailures):
                        try JobStore.finishProduction(snapshot.id, withFailures: withFailures, on: connection)
                        logger.info("production finished", metadata: [
                            "production_id": "\(snapshot.id)", "dead": "\(snapshot.dead)", "cancelled": "\(snapshot.cancelled)"])
                    }
                }
                advanceFailures.withLock { _ = $0.removeValue(forKey: candidate.id) }
            } catch let error as PostgresError where error.isConnectionLost {
                throw error
            } catch {
                // A plan that throws something other than a database error (parameters that no
                // longer decode) fails the same way every time: finish at once. A statement error
                // may pass (a lock timeout): a few tries, then finish.
                let failures = advanceFailures.withLock { failures -> Int in
                    failures[candidate.id, default: 0] += 1
                    return failures[candidate.id] ?? 1
                }
                logger.error("advancing a production failed", metadata: [
                    "production_id": "\(candidate.id)", "error": "\(error)", "attempt": "\(failures)"])
                if !(error is PostgresError) || failures >= Self.advanceAttempts {
                    advanceFailures.withLock { _ = $0.removeValue(forKey: candidate.id) }
                    try finishUnadvanceable(candidate.id, reason: "its stage '\(candidate.stage)' could not advance: \(error)", on: db)
                }
            }
        }
    }

    @available(*, noasync)
    private func finishUnadvanceable(_ id: UUID, reason: String, on db: PostgresConnection) throws {
        try JobStore.finishProduction(id, withFailures: true, reason: reason, on: db)
        logger.error("production finished: it cannot advance", metadata: ["production_id": "\(id)", "reason": "\(reason)"])
    }
}
