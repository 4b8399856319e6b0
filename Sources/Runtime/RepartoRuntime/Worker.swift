import AMQP
import Foundation
import Logging
import Metrics
import Postgres
import ServiceLifecycle
import Synchronization
import Threading

/// How a worker consumes and runs jobs.
public struct WorkerSettings: Sendable {
    /// Queue names (not RabbitMQ queue names): `default`, `parse`, `generate`, ...
    public var queues: [String]
    /// Handlers running at once.
    public var concurrency: Int
    /// Unacknowledged deliveries the broker may send ahead (≥ concurrency keeps handlers fed).
    public var prefetch: Int
    /// Seconds between heartbeats; the worker counts as stale after three missed ones.
    public var heartbeatInterval: Double
    /// Seconds in-flight jobs may take to finish after SIGTERM before they are handed back.
    public var drainTimeout: Double
    /// Run an outbox relay in this process too (relays share the work safely).
    public var runsRelay: Bool
    /// Prefix of queue names and routing keys, so clusters can share a broker (empty: none).
    public var namespace: String

    public init(queues: [String] = ["default"], concurrency: Int = 16, prefetch: Int = 200,
                heartbeatInterval: Double = 2, drainTimeout: Double = 30, runsRelay: Bool = true, namespace: String = "") {
        self.namespace = namespace
        self.queues = queues
        self.concurrency = max(1, concurrency)
        self.prefetch = max(prefetch, concurrency)
        self.heartbeatInterval = heartbeatInterval
        self.drainTimeout = drainTimeout
        self.runsRelay = runsRelay
    }
}

/// A worker process's job loop, as a swift-service-lifecycle `Service`.
///
/// Deliveries are claimed in batches (one UPDATE for many jobs, which also drops redeliveries of
/// finished jobs), on the transport's own thread as they arrive (``WorkerStorage/claimOnArrival(_:workerID:)``;
/// in a task when slots free up later, or when a claim needs its second step or failed), but only
/// as many as there are free handler slots: a claimed job starts at once,
/// so the attempt a claim counts is one that runs, and a worker that dies leaves no job claimed
/// but not started (its prefetched deliveries go back to the broker uncounted). Handlers run
/// concurrently up to `concurrency` with the kind's timeout, and outcomes are committed in batches
/// with their effects, then acknowledged: a message is acked only after its result is committed.
/// A job whose last attempt ended with its worker gone runs alone (``JobLifecycle/runsAlone(crashes:)``).
/// Heartbeats are timed and sent on a thread of their own, so a busy cooperative pool cannot make
/// a live worker look dead. On graceful shutdown the worker stops consuming, lets in-flight jobs
/// finish within the drain timeout, hands the rest back, and returns.
public final class Worker: Service, Sendable {
    private struct Delivered: Sendable {
        var delivery: AMQPDelivery
        var id: UUID
    }

    /// The deliveries a claim takes, and whether it is a suspect's, claimed alone.
    private typealias Claim = (batch: [Delivered], alone: Bool)

    /// What a claim's first step returns: the jobs it claimed, and the rest for its second step.
    private typealias FirstStep = (claimed: [ClaimedJob], rest: [UUID])

    private struct Completed: Sendable {
        var outcome: JobOutcome
        var delivery: AMQPDelivery
        var kind: String
        var productionID: UUID?
    }

    private struct State {
        /// Delivered, not yet claimed: a job is claimed only when a handler slot is free for it.
        var pending: [Delivered] = []
        /// Delivered suspects (``JobLifecycle/runsAlone(crashes:)``) a claim left: each is claimed
        /// alone once nothing runs, and while any waits nothing else is claimed.
        var suspects: [Delivered] = []
        /// The suspect running alone, if one is: nothing else is claimed until it ends.
        var alone: UUID?
        /// Handler slots neither running a job nor reserved by a claim in flight.
        var freeSlots: Int
        /// Jobs whose handler ended and whose outcome is not committed yet (their rows still say
        /// `running`). A suspect waits for none to be left: the rescue judges "alone" by the rows,
        /// so a crash while one was left counted as a crash beside it, against both jobs.
        var uncommitted = 0
        /// A claim is in flight (one at a time: it takes every slot freed meanwhile).
        var claiming = false
        /// Draining: nothing more is claimed; pending deliveries go back to the broker.
        var claimsStopped = false
        var running: [UUID: Task<Void, Never>] = [:]
        var cancelRequested: Set<UUID> = []
        /// Jobs whose timeout passed: their task was cancelled for it.
        var timedOut: Set<UUID> = []
        var draining = false
        var succeeded = 0
        var failed = 0
    }

    public let identity: WorkerIdentity
    /// The worker's (and its relay's) connections, for readiness.
    public let health: ConnectionHealth
    private let storage: any WorkerStorage
    private let registry: JobRegistry
    private let settings: WorkerSettings
    private let logger: Logger
    private let consumer: any JobTransport
    private let relay: OutboxRelay?
    private let state: Mutex<State>
    private let completions: Batcher<Completed>
    /// Commits plain successes on a thread of its own (``WorkerStorage/completeOnThread(_:)``):
    /// through ``completions`` a job's outcome crossed to a new task, the completions
    /// connection's queue and back. Nil when the process is out of descriptors: every outcome
    /// then goes through ``completions``.
    private let completionThread: ThreadBatcher<Completed>?
    /// Until when outcomes skip ``completionThread``'s storage call after it failed (a
    /// lost connection): ``completions`` retries them with its backoff meanwhile.
    private let threadCompletionsPausedUntil = Mutex<ContinuousClock.Instant?>(nil)
    /// Times and sends the heartbeats. Timed on Swift's cooperative pool, a live worker's
    /// heartbeat came more than three intervals late while handlers kept the pool busy, and the
    /// coordinator's rescue counted a crash against each job it was running.
    private let heartbeatThread = OwnedThread(name: "reparto-beat")

    /// A worker on RabbitMQ and PostgreSQL (with an outbox relay when `settings.runsRelay`).
    public convenience init(amqp: AMQPConfiguration, postgres: PostgresClient, registry: JobRegistry,
                            settings: WorkerSettings, logger: Logger) {
        let queues = settings.queues
        let namespace = settings.namespace
        let health = ConnectionHealth()
        health.require(.consumerBroker)
        health.require(.workerDatabase)
        let consumer = AMQPConsumer(
            configuration: amqp,
            settings: .init(queues: queues.map { JobTopology.queueName($0, namespace: namespace) }, prefetch: settings.prefetch) { connection in
                try JobTopology.declareBase(on: connection)
                for queue in queues { try JobTopology.declare(queue: queue, namespace: namespace, on: connection) }
            },
            logger: logger,
            onConnect: { _ in health.markUp(.consumerBroker) },
            onDisconnect: { health.markDown(.consumerBroker) })
        let relay = settings.runsRelay
            ? OutboxRelay(postgres: postgres.configuration, amqp: amqp, namespace: namespace, logger: logger, health: health) : nil
        self.init(transport: AMQPJobTransport(consumer: consumer),
                  storage: PostgresWorkerStorage(postgres: postgres, defaultLimits: registry.defaultLimits),
                  registry: registry, settings: settings, logger: logger, health: health, relay: relay)
    }

    /// A worker on any transport and storage (in-memory ones in unit tests), without an outbox relay.
    public convenience init(transport: any JobTransport, storage: any WorkerStorage, registry: JobRegistry,
                            settings: WorkerSettings, logger: Logger) {
        self.init(transport: transport, storage: storage, registry: registry, settings: settings, logger: logger,
                  health: ConnectionHealth(), relay: nil)
    }

    private init(transport: any JobTransport, storage: any WorkerStorage, registry: JobRegistry,
                 settings: WorkerSettings, logger: Logger, health: ConnectionHealth, relay: OutboxRelay?) {
        self.storage = storage
        self.registry = registry
        self.settings = settings
        self.logger = logger
        self.identity = WorkerIdentity(queues: settings.queues, concurrency: settings.concurrency,
                                       heartbeatInterval: settings.heartbeatInterval)
        self.health = health
        self.consumer = transport
        self.relay = relay
        state = Mutex(State(freeSlots: settings.concurrency))
        // The batcher calls back into self, which does not exist yet: it reaches it through a box.
        let box = WorkerBox()
        completions = Batcher(maxBatch: 1000) { batch in await box.worker?.commit(batch) }
        do {
            completionThread = try ThreadBatcher(name: "reparto-commits", maxBatch: 1000) { batch in
                box.worker?.commitOnThread(batch)
            }
        } catch {
            logger.warning("the completion thread cannot start; outcomes are committed from tasks", metadata: ["error": "\(error)"])
            completionThread = nil
        }
        box.worker = self
    }

    public func run() async throws {
        var logger = self.logger
        logger[metadataKey: "worker_id"] = "\(identity.id)"
        try await registerUntilReachable()
        let kinds = registry.definitions.map { (kind: $0.kind, crashLimit: $0.crashLimit) }
        _ = await retryingDatabase("record the kinds' crash limits") { try await self.storage.recordKinds(kinds) }
        do {
            try await storage.prepare(workerID: identity.id)
        } catch {
            // Only the first jobs' latency depends on it; their claims open what is missing.
            logger.warning("could not ready the claims' and completions' connections", metadata: ["error": "\(error)"])
        }
        // Before the first job: a hook's write must not land after what the jobs wrote.
        for hook in registry.workerStartHooks { await hook() }
        relay?.start()
        logger.info("worker started", metadata: [
            "queues": "\(settings.queues.joined(separator: ","))", "concurrency": "\(settings.concurrency)",
            "prefetch": "\(settings.prefetch)",
        ])
        // The registration's heartbeat is as old as the start-up since (connections readied, hooks
        // run): renewed before the first claim, or a slow start (a CI run under load) made the
        // worker look dead to the coordinator's rescue while it ran its first jobs.
        _ = try? await BlockingWork.run { try self.heartbeatOnce() }
        heartbeatThread.start { [self] owner in heartbeatLoop(owner) }
        await withGracefulShutdownHandler {
            await consumer.run { [self] deliveries in receive(deliveries) }
        } onGracefulShutdown: {
            Task { await self.drain() }
        }
        await completionThread?.stop()
        await heartbeatThread.stop()
        await relay?.stop()
        do {
            let (succeeded, failed) = state.withLock { ($0.succeeded, $0.failed) }
            try await storage.markStopped(workerID: identity.id, succeeded: succeeded, failed: failed)
        } catch {
            logger.warning("could not record the worker as stopped", metadata: ["error": "\(error)"])
        }
        logger.info("worker stopped")
    }

    // MARK: deliveries → claims

    /// The transport's thread: takes the deliveries and claims what it can at once, there.
    @available(*, noasync)
    private func receive(_ deliveries: [AMQPDelivery]) {
        var arrived: [Delivered] = []
        for delivery in deliveries {
            guard let text = String(bytes: delivery.body, encoding: .utf8), let id = UUID(uuidString: text) else {
                logger.error("dropping a message that is not a job id (dead-lettered)", metadata: ["routing_key": "\(delivery.routingKey)"])
                consumer.reject(delivery, requeue: false)
                continue
            }
            arrived.append(Delivered(delivery: delivery, id: id))
        }
        guard !arrived.isEmpty else { return }
        state.withLock { $0.pending += arrived }
        claimOnArrival()
    }

    /// Claims pending deliveries on the calling thread (the transport's), blocking, while a claim
    /// may start (see ``nextClaim()``) and the storage claims without waiting. A claim that needs
    /// more (a second step for a pause, a limit or a redelivery; a suspect), or that failed, goes
    /// on in a task, retried like any claim (``claimInTask(_:fast:)``).
    @available(*, noasync)
    private func claimOnArrival() {
        while let next = nextClaim() {
            var fast: FirstStep?
            if !next.alone {
                do {
                    fast = try storage.claimOnArrival(next.batch.map(\.id), workerID: identity.id)
                } catch {
                    logger.warning("claiming on arrival failed; claiming in a task instead", metadata: ["error": "\(error)"])
                }
            }
            guard let fast, fast.rest.isEmpty else {
                claimInTask(next, fast: fast)
                return
            }
            settle(next.batch, claimed: fast.claimed, suspects: [], alone: false)
            state.withLock { $0.claiming = false }
        }
    }

    /// Starts a claim in a task (see ``nextClaim()``); used when handler slots free up and
    /// deliveries wait for them.
    private func pumpClaims() {
        guard let next = nextClaim() else { return }
        claimInTask(next, fast: nil)
    }

    /// Takes the next claim's deliveries and reserves their slots: as many pending deliveries as
    /// there are free slots, unless a claim is in flight (its end claims again) or the worker
    /// drains (pending deliveries then go back to the broker with the channel, unclaimed and
    /// uncounted).
    ///
    /// A suspect a claim left waits for the worker to run nothing and to have committed every
    /// outcome, then is claimed alone (see ``JobLifecycle/runsAlone(crashes:)``); until it ends,
    /// nothing else is claimed.
    private func nextClaim() -> Claim? {
        let concurrency = settings.concurrency
        return state.withLock { state -> Claim? in
            guard !state.claiming, !state.claimsStopped, state.alone == nil else { return nil }
            if let suspect = state.suspects.first {
                guard state.freeSlots == concurrency, state.uncommitted == 0 else { return nil }
                state.suspects.removeFirst()
                state.freeSlots -= 1
                state.claiming = true
                return ([suspect], true)
            }
            guard state.freeSlots > 0, !state.pending.isEmpty else { return nil }
            let count = min(state.freeSlots, state.pending.count)
            state.freeSlots -= count
            state.claiming = true
            defer { state.pending.removeFirst(count) }
            return (Array(state.pending.prefix(count)), false)
        }
    }

    /// Finishes a claim ``nextClaim()`` took in a task, then claims again if deliveries wait.
    /// `fast`: the first step's result, when it was made on arrival.
    private func claimInTask(_ next: Claim, fast: FirstStep?) {
        Task {
            await claim(next.batch, alone: next.alone, fast: fast)
            state.withLock { $0.claiming = false }
            pumpClaims()
        }
    }

    /// Gives handler slots back and claims more if deliveries wait. `ending`: the job whose slot
    /// this is, which no longer runs alone if it did, and whose outcome is now to be committed.
    private func releaseSlots(_ count: Int, ending job: UUID? = nil) {
        guard count > 0 else { return }
        state.withLock { state in
            state.freeSlots += count
            if let job {
                state.uncommitted += 1
                if state.alone == job { state.alone = nil }
            }
        }
        pumpClaims()
    }

    private func claim(_ batch: [Delivered], alone: Bool, fast known: FirstStep?) async {
        let ids = batch.map(\.id)
        let workerID = identity.id
        // Two steps, each retried on its own: the first commits what it claims, so a retry of the
        // second must not find those jobs running (here) and leave them unstarted.
        var fast = known
        if fast == nil {
            fast = await retryingDatabase("claim jobs") {
                try await self.storage.claim(ids, workerID: workerID)
            }
        }
        var claimed = fast?.claimed ?? []
        var suspects: Set<UUID> = []
        if let rest = fast?.rest, !rest.isEmpty {
            let controlled = await retryingDatabase("claim jobs under a limit or pause") {
                try await self.storage.claimControlled(rest, workerID: workerID, alone: alone)
            }
            claimed += controlled?.claimed ?? []
            suspects = Set(controlled?.suspects ?? [])
        }
        settle(batch, claimed: claimed, suspects: suspects, alone: alone)
    }

    /// Starts the claimed jobs in the slots their claim reserved, keeps the suspects left for
    /// later, acknowledges the rest (nothing to run), and gives their slots back.
    private func settle(_ batch: [Delivered], claimed: [ClaimedJob], suspects: Set<UUID>, alone: Bool) {
        var byID = Dictionary(claimed.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var unused = 0
        var waiting: [Delivered] = []
        for item in batch {
            guard let job = byID.removeValue(forKey: item.id) else {
                unused += 1
                if suspects.contains(item.id) {
                    waiting.append(item)
                } else {
                    // Finished, cancelled, or running elsewhere: nothing to do but acknowledge.
                    consumer.ack(item.delivery)
                }
                continue
            }
            start(job, delivery: item.delivery, alone: alone)
        }
        if !waiting.isEmpty {
            logger.info("a job whose worker died runs alone once this worker is idle", metadata: ["count": "\(waiting.count)"])
            state.withLock { $0.suspects += waiting }
        }
        releaseSlots(unused)
    }

    // MARK: running handlers

    /// Runs a claimed job in the slot its claim reserved (`alone`: nothing else is claimed until it ends).
    private func start(_ job: ClaimedJob, delivery: AMQPDelivery, alone: Bool) {
        // The task is created under the lock, so it is registered before its own cleanup can run.
        state.withLock { state in
            if alone { state.alone = job.id }
            let task = Task {
                let outcome = await execute(job)
                // The slot is given back before the outcome is queued for its commit and ack, so
                // the claims it lets start come before the ack (a caller may wait for the ack, then
                // deliver more). The job leaves `running` only once its outcome is queued: a drain
                // that finds nothing running then finds every outcome in the batcher.
                releaseSlots(1, ending: job.id)
                let completed = Completed(outcome: outcome, delivery: delivery, kind: job.kind, productionID: job.productionID)
                if !JobStore.completesAlone(outcome) || completionThread?.add(completed) != true {
                    completions.add(completed)
                }
                self.state.withLock { state in
                    state.running[job.id] = nil
                    state.cancelRequested.remove(job.id)
                    state.timedOut.remove(job.id)
                }
            }
            state.running[job.id] = task
            if state.draining { task.cancel() }
        }
    }

    private func execute(_ job: ClaimedJob) async -> JobOutcome {
        guard let definition = registry.definition(for: job.kind) else { return AttemptDecision.unknownKind(job) }
        let (draining, cancelled) = state.withLock { ($0.draining, $0.cancelRequested.contains(job.id)) }
        switch AttemptDecision.start(draining: draining, cancelRequested: cancelled) {
        case .handBack:
            return JobOutcome(id: job.id, attempt: job.attempt, state: .queued)
        case .cancel:
            // Claimed, then cancelled while it waited for a handler slot: it never starts.
            return JobOutcome(id: job.id, attempt: job.attempt, state: .cancelled, error: "cancelled before it started")
        case .run:
            break
        }
        let context = JobContext(jobID: job.id, kind: job.kind, attempt: job.attempt, maxAttempts: job.maxAttempts,
                                 productionID: job.productionID, stage: job.stage, limitKey: job.limitKey,
                                 previousError: job.lastError, logger: logger)
        let timeout = job.timeout ?? definition.timeout
        let started = ContinuousClock.now
        Counter(label: "reparto_jobs_started_total", dimensions: [("kind", job.kind)]).increment()
        do {
            // The timeout cancels the job's task from the deadline thread (see DeadlineWatch for
            // why not a sleeping child task); a handler that ends anyway keeps its result.
            let deadline = DeadlineWatch.shared.schedule(after: timeout) { [weak self] in self?.timeOut(job.id) }
            defer { DeadlineWatch.shared.cancel(deadline) }
            let result = try await definition.run(job.parameters, context)
            Timer(label: "reparto_job_duration_seconds", dimensions: [("kind", job.kind)], preferredDisplayUnit: .seconds)
                .record(duration: ContinuousClock.now - started)
            var success = AttemptDecision.succeeded(job, result: result)
            success.effects = context.effects.all
            success.actualCost = context.reportedCost
            let policy = definition.retryPolicy
            success.onEffectFailure = { [job] text in
                var generator = SystemRandomNumberGenerator()
                return AttemptDecision.failure(job, text: text, retryable: true, policy: policy, using: &generator)
            }
            return success
        } catch {
            let (cancelRequested, draining, timedOut) = state.withLock {
                ($0.cancelRequested.contains(job.id), $0.draining, $0.timedOut.contains(job.id))
            }
            var generator = SystemRandomNumberGenerator()
            let outcome = AttemptDecision.threw(job, error: error, cancelRequested: cancelRequested, draining: draining,
                                                taskCancelled: Task.isCancelled, timedOutAfter: timedOut ? timeout : nil,
                                                policy: definition.retryPolicy, using: &generator)
            if outcome.state == .failed || outcome.state == .dead {
                context.logger.warning("job attempt failed", metadata: [
                    "kind": "\(job.kind)", "attempt": "\(job.attempt)", "error": "\(outcome.error ?? "\(error)")"])
            }
            return outcome
        }
    }

    /// A failed attempt's outcome (see ``AttemptDecision/failure(_:text:retryable:policy:using:)``).
    static func failure(for job: ClaimedJob, text: String, retryable: Bool, policy: RetryPolicy) -> JobOutcome {
        var generator = SystemRandomNumberGenerator()
        return AttemptDecision.failure(job, text: text, retryable: retryable, policy: policy, using: &generator)
    }

    /// The deadline thread's action: the job ran out of time; stop its task.
    private func timeOut(_ id: UUID) {
        let task = state.withLock { state -> Task<Void, Never>? in
            guard let task = state.running[id] else { return nil }
            state.timedOut.insert(id)
            return task
        }
        task?.cancel()
    }

    // MARK: committing outcomes, then acknowledging

    private func commit(_ batch: [Completed]) async {
        let outcomes = batch.map(\.outcome)
        var applied: [JobOutcome]? = await retryingDatabase("commit job results", giveUpOnQueryErrors: true) {
            try await self.storage.complete(outcomes)
        }
        if applied == nil {
            // A statement error (not a lost connection) sank the batch: commit one by one so a
            // single bad outcome cannot block the others; a job that still fails is recorded dead.
            var each: [JobOutcome] = []
            for item in batch {
                let outcome = item.outcome
                var about: Logger.Metadata = ["job_id": "\(outcome.id)"]
                if let production = item.productionID { about["production_id"] = "\(production)" }
                if let done = await retryingDatabase("commit one job result", giveUpOnQueryErrors: true, metadata: about,
                                                     operation: {
                    try await self.storage.complete([outcome])
                }) {
                    each.append(contentsOf: done)
                } else {
                    let dead = JobOutcome(id: outcome.id, attempt: outcome.attempt, state: .dead,
                                          error: "the job's result could not be stored")
                    each.append(contentsOf: await retryingDatabase("record a failed commit", metadata: about) {
                        try await self.storage.complete([dead])
                    } ?? [])
                }
            }
            applied = each
        }
        acknowledge(batch, applied: applied ?? [])
    }

    /// The completion thread's flush: commits plain successes there, blocking it, and acks them;
    /// hands what that left (under a limit, fenced out) or could not commit to ``completions``.
    @available(*, noasync)
    private func commitOnThread(_ batch: [Completed]) {
        let paused = threadCompletionsPausedUntil.withLock { until in until.map { ContinuousClock.now < $0 } ?? false }
        var applied: [JobOutcome]?
        if !paused {
            do {
                applied = try storage.completeOnThread(batch.map(\.outcome))
            } catch {
                threadCompletionsPausedUntil.withLock { $0 = .now + .seconds(1) }
                logger.warning("committing job results on the completion thread failed; committing them from a task",
                               metadata: ["error": "\(error)", "jobs": "\(batch.count)"])
            }
        }
        guard let applied else { return completions.add(contentsOf: batch) }
        let ids = Set(applied.map(\.id))
        let left = batch.filter { !ids.contains($0.outcome.id) }
        if !left.isEmpty { completions.add(contentsOf: left) }
        acknowledge(batch.filter { ids.contains($0.outcome.id) }, applied: applied)
    }

    /// Counts committed outcomes, then acks, requeues or dead-letters their deliveries; a
    /// delivery whose outcome did not apply (fenced out) is acked uncounted.
    private func acknowledge(_ batch: [Completed], applied: [JobOutcome]) {
        let byID = Dictionary(applied.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let decisions = batch.map { item in
            let committed = byID[item.outcome.id]
            return AttemptDecision.acknowledgement(for: committed?.state, rescheduled: committed?.isRescheduled ?? false)
        }
        // Counted before the acks go out, so whoever sees an ack also sees it counted.
        let suspectMayStart = state.withLock { state in
            state.succeeded += decisions.filter(\.succeeded).count
            state.failed += decisions.filter(\.failed).count
            state.uncommitted -= batch.count
            return state.uncommitted == 0 && !state.suspects.isEmpty
        }
        for (item, decision) in zip(batch, decisions) {
            let dimensions = [("kind", item.kind)]
            if decision.succeeded { Counter(label: "reparto_jobs_succeeded_total", dimensions: dimensions).increment() }
            if decision.failed { Counter(label: "reparto_jobs_failed_total", dimensions: dimensions).increment() }
            if decision.dead { Counter(label: "reparto_jobs_dead_total", dimensions: dimensions).increment() }
            if decision.retried { Counter(label: "reparto_jobs_retried_total", dimensions: dimensions).increment() }
            if decision.rescheduled { Counter(label: "reparto_jobs_rescheduled_total", dimensions: dimensions).increment() }
            switch decision.delivery {
            case .ack: consumer.ack(item.delivery) // a retry is republished by the relay when due
            case .deadLetter: consumer.reject(item.delivery, requeue: false)
            case .requeue: consumer.reject(item.delivery, requeue: true)
            }
        }
        if suspectMayStart { pumpClaims() }
    }

    /// Runs a database operation until it succeeds, waiting out lost connections (a PostgreSQL
    /// restart). With `giveUpOnQueryErrors`, a statement error returns nil instead.
    private func retryingDatabase<T: Sendable>(_ what: String, giveUpOnQueryErrors: Bool = false,
                                               metadata about: Logger.Metadata = [:],
                                               operation: @escaping @Sendable () async throws -> T) async -> T? {
        var backoff = Backoff(initial: 0.05, maximum: 2)
        while true {
            do {
                let value = try await operation()
                if backoff.failures > 0 { health.markUp(.workerDatabase) }
                return value
            } catch let error as PostgresError where !error.isConnectionLost && giveUpOnQueryErrors {
                logger.error("\(what) failed", metadata: about.merging(["error": "\(error)"]) { $1 })
                return nil
            } catch {
                if error is CancellationError { return nil }
                if (error as? PostgresError)?.isConnectionLost != false { health.markDown(.workerDatabase) }
                let delay = backoff.next()
                logger.warning("\(what) failed, retrying",
                               metadata: about.merging(["error": "\(error)", "retry_in_s": "\(delay)"]) { $1 })
                try? await Task.sleep(for: .seconds(delay))
            }
        }
    }

    // MARK: heartbeat, cancellation, drain

    private func registerUntilReachable() async throws {
        var backoff = Backoff(initial: 0.1, maximum: 5)
        while true {
            do {
                _ = try await BlockingWork.run { try self.heartbeatOnce() }
                return
            } catch {
                if Task.isCancelled { throw CancellationError() }
                logger.warning("cannot reach PostgreSQL, retrying", metadata: ["error": "\(error)"])
                try await Task.sleep(for: .seconds(backoff.next()))
            }
        }
    }

    @available(*, noasync)
    private func heartbeatOnce() throws -> (cancel: [UUID], lost: [UUID]) {
        let (succeeded, failed, local, held) = state.withLock { state in
            (state.succeeded, state.failed, Array(state.running.keys),
             (state.pending + state.suspects).reduce(into: [String: Int]()) { $0[$1.delivery.routingKey, default: 0] += 1 })
        }
        let identity = self.identity
        Gauge(label: "reparto_jobs_in_flight").record(local.count)
        do {
            let cancel = try storage.heartbeat(identity, succeeded: succeeded, failed: failed, inFlight: local.count,
                                               local: local, held: held)
            health.markUp(.workerDatabase)
            return cancel
        } catch {
            if (error as? PostgresError)?.isConnectionLost != false { health.markDown(.workerDatabase) }
            throw error
        }
    }

    /// Runs on ``heartbeatThread`` until it is stopped, after the worker drained.
    @available(*, noasync)
    private func heartbeatLoop(_ owner: OwnedThread) {
        while true {
            owner.sleep(settings.heartbeatInterval)
            if owner.isStopping { return }
            do {
                let (cancel, lost) = try heartbeatOnce()
                guard !cancel.isEmpty || !lost.isEmpty else { continue }
                let tasks = state.withLock { state in
                    let decision = HeartbeatDecision.decide(cancel: cancel, lost: lost, running: Set(state.running.keys))
                    state.cancelRequested.formUnion(decision.markCancelled)
                    return decision.stop.compactMap { state.running[$0] }
                }
                // A lost job's outcome is fenced out at commit (another attempt owns the row now);
                // stopping it frees the slot and keeps a handler from working for nothing.
                if !lost.isEmpty { logger.warning("stopping jobs this worker no longer owns", metadata: ["count": "\(lost.count)"]) }
                tasks.forEach { $0.cancel() }
            } catch {
                logger.warning("heartbeat failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Graceful shutdown: stop consuming, let in-flight work finish within the drain timeout,
    /// hand back what did not, commit, then close the consumer (which ends `run`).
    private func drain() async {
        logger.info("draining", metadata: ["in_flight": "\(state.withLock { $0.running.count })"])
        consumer.stopConsuming()
        state.withLock { $0.claimsStopped = true }
        let deadline = ContinuousClock.now + .seconds(settings.drainTimeout)
        while case .wait = DrainDecision.next(running: state.withLock { $0.running.count }, now: .now, deadline: deadline) {
            try? await Task.sleep(for: .milliseconds(20))
        }
        let leftovers = state.withLock { state -> [Task<Void, Never>] in
            state.draining = true
            return Array(state.running.values)
        }
        leftovers.forEach { $0.cancel() }
        for task in leftovers { await task.value }
        // A claim in flight started its jobs as `draining` was set: they were handed back above or
        // are handed back by execute() at once; wait for it, then for their commits.
        while state.withLock({ $0.claiming }) { try? await Task.sleep(for: .milliseconds(5)) }
        let late = state.withLock { Array($0.running.values) }
        for task in late { task.cancel(); await task.value }
        // The thread's flush hands what it leaves to the batcher before it counts as idle.
        await completionThread?.waitUntilIdle()
        await completions.waitUntilIdle()
        await consumer.close()
    }
}

/// Lets the batchers, created in `init`, reach the worker once it exists (set once, never cleared;
/// the worker lives as long as the process).
private final class WorkerBox: Sendable {
    private let reference = Mutex<Worker?>(nil)
    var worker: Worker? {
        get { reference.withLock { $0 } }
        set { reference.withLock { $0 = newValue } }
    }
}
