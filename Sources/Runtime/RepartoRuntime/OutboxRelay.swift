import AMQP
import Foundation
import Logging
import Metrics
import Postgres
import Threading

/// Publishes committed jobs to RabbitMQ: the transactional outbox's relay.
///
/// One dedicated thread owns a PostgreSQL connection and an AMQP connection. One statement takes
/// a batch of due, unpublished jobs (`FOR UPDATE SKIP LOCKED`) and clears their publish flag;
/// the relay then publishes them persistently. It does not wait for the broker's confirms before
/// its next take: up to ``windowCapacity`` batches are in flight (``PublishWindow``), and their
/// confirms are taken in while it waits for the next notification. What the broker returns, or
/// what a failed channel leaves unconfirmed, is flagged again.
/// Marking before publishing keeps the claims of jobs whose messages arrive before the confirms
/// from waiting for a relay's row locks; a relay that dies between its take and its confirms
/// leaves jobs marked with no message, which the comparison with the broker's queues below
/// finds and publishes again. Consumers drop duplicates when they claim; nothing is lost.
///
/// Every worker and coordinator runs a relay, and one of them leads: the holder of a session
/// advisory lock (released when its connection ends, or given up when it loses the broker). The
/// leader wakes on `NOTIFY reparto_outbox` and when the next scheduled retry is due. The others
/// stand by: once a second they try to lead, and publish only what has been due for
/// ``standbyGrace`` seconds, so a stalled leader (alive, but not publishing) delays jobs by that
/// much and no more. Relays that all publish everything contend for the same rows and pages:
/// one leader published more jobs a second than every relay together.
///
/// PostgreSQL is the truth and the broker a transport. Publishes are mandatory: a message the
/// broker returns as unroutable (its queue deleted) is flagged again and published again after
/// its queue is declared anew. A queue the broker refuses to declare (declared elsewhere with
/// other arguments) fails its jobs with the broker's reason instead of blocking every publish.
/// And every ``lostCheckInterval`` the leader compares, per queue, the published jobs waiting
/// in the database for at least ``lostGrace`` with the messages the broker holds, and publishes
/// the difference again, oldest first: a purged queue, a deleted one, a lost node's messages, a
/// dead relay's batch.
/// Duplicates this makes are dropped by the workers' claims.
public final class OutboxRelay: Sendable {
    private let postgres: PostgresConfiguration
    private let amqp: AMQPConfiguration
    private let logger: Logger
    private let batchSize: Int
    private let namespace: String
    private let thread = OwnedThread(name: "reparto-relay")
    /// Seconds a job may wait for the leading relay before a standby publishes it.
    private let standbyGrace: Double
    /// The relays' leader lock: one per namespace, apart from the coordinators' and the migrators'.
    private let lockKey: Int64
    /// The relay's connections, for readiness (shared with the worker or coordinator that runs it).
    public let health: ConnectionHealth
    /// Seconds between two comparisons of the database's waiting jobs with the broker's queues.
    public let lostCheckInterval: Double
    /// Seconds a published job must have waited before a missing message counts as lost.
    public let lostGrace: Double

    /// - Parameter health: where the relay reports its PostgreSQL and AMQP connections (a new one when nil).
    /// - Parameter standbyGrace: seconds a due job waits for the leading relay before a standby publishes it.
    public init(postgres: PostgresConfiguration, amqp: AMQPConfiguration, namespace: String = "", logger: Logger,
                batchSize: Int = 1000, health: ConnectionHealth? = nil, standbyGrace: Double = 5,
                lostCheckInterval: Double = 5, lostGrace: Double = 10) {
        let health = health ?? ConnectionHealth()
        health.require(.relayDatabase)
        health.require(.relayBroker)
        self.health = health
        self.namespace = namespace
        self.postgres = postgres
        self.amqp = amqp
        self.logger = logger
        self.batchSize = batchSize
        self.standbyGrace = standbyGrace
        self.lostCheckInterval = lostCheckInterval
        self.lostGrace = lostGrace
        self.lockKey = Self.lockKey(namespace: namespace)
    }

    /// Every statement of the relay on `jobs` has an index made for it (the outbox's, the
    /// primary key, the published waiting jobs'), and a connection keeps its statements' generic
    /// plans: made while `jobs` was empty (a new database, a quiet one archived to nothing), they
    /// were sequential scans, and each pass then read the whole table as it filled, until an
    /// autovacuum's analyze replanned them.
    ///
    /// Nor bitmap scans: the outbox index holds an entry for every taken job's old row version
    /// until a vacuum, and a bitmap scan visits each of those rows on every take (8,000–9,000 rows,
    /// 260 pages, at 1,600 jobs/s, half the take's time). A plain index scan marks an entry dead
    /// the first time it finds its row dead, and later takes skip it without reading the row.
    ///
    /// Its commits do not wait for the WAL flush: a take lost in a crash only publishes its jobs
    /// again (dropped at claim), and so does a flag it set again.
    static let sessionSettings = "SET enable_seqscan = off; SET enable_bitmapscan = off; SET synchronous_commit = off"

    /// "repartr" plus a hash of the namespace in the low bits: clusters sharing a database each get a leader.
    static func lockKey(namespace: String) -> Int64 {
        LeaderLock.key(base: 0x7265_7061_7274_72, namespace: namespace)
    }

    public func start() { thread.start { [self] owner in loop(owner) } }

    public func stop() async { await thread.stop() }

    private func loop(_ owner: OwnedThread) {
        var database: PostgresConnection?
        var broker: AMQPConnection?
        var declared = Set<String>()
        var backoff = Backoff(initial: 0.1, maximum: 5)
        var lastCleanup = Date.distantPast
        var lastLostCheck = Date()
        var leading = false
        var lastLeadAttempt = Date.distantPast
        var window = PublishWindow(capacity: Self.windowCapacity)
        // Batches whose confirms will never come (a broker connection given up, a stop) are
        // flagged again; a copy that got through is dropped at claim. Without a database
        // connection, the comparison with the broker's queues finds them.
        func flagInFlightAgain() {
            let inFlight = window.removeAll()
            if !inFlight.isEmpty, let database { try? JobStore.restorePending(inFlight, on: database) }
        }
        func abandonBroker() {
            broker?.abandon(); broker = nil
            flagInFlightAgain()
        }
        while !owner.isStopping {
            do {
                if database == nil {
                    let connection = try PostgresConnection.connect(postgres)
                    try connection.execute(Self.sessionSettings)
                    database = connection
                    leading = false
                    lastLeadAttempt = .distantPast
                    health.markUp(.relayDatabase)
                }
                if broker == nil {
                    let connection = try AMQPConnection.connect(amqp)
                    try JobTopology.declareBase(on: connection)
                    try connection.enableConfirms()
                    broker = connection
                    declared = []
                    health.markUp(.relayBroker)
                }
                guard let db = database, let mq = broker else { continue }
                if !leading && Date().timeIntervalSince(lastLeadAttempt) >= 1 {
                    lastLeadAttempt = Date()
                    if try JobStore.tryLead(lockKey: lockKey, on: db) {
                        try db.listen(JobStore.outboxChannel)
                        leading = true
                        logger.info("outbox relay leads")
                    }
                }
                let overdueBy = leading ? 0 : standbyGrace
                var published = batchSize
                // The broker closed the channel (a refused declare): reconnect before publishing more.
                var channelLost = false
                while published == batchSize && !owner.isStopping {
                    if window.isFull {
                        try mq.waitForConfirms(timeout: Self.confirmTimeout)
                        try settle(&window, declared: &declared, db: db, mq: mq)
                    }
                    let pass = try publishBatch(db: db, mq: mq, overdueBy: overdueBy, declared: declared, window: &window)
                    published = pass.published
                    declared = pass.declared
                    channelLost = pass.channelLost
                    if published > 0 { Counter(label: "reparto_outbox_published_total").increment(by: published) }
                    if channelLost { break }
                }
                if channelLost {
                    abandonBroker()
                    continue
                }
                try settle(&window, declared: &declared, db: db, mq: mq)
                if leading && Date().timeIntervalSince(lastLostCheck) >= lostCheckInterval {
                    lastLostCheck = Date()
                    if try republishLost(db: db, mq: mq) {
                        abandonBroker()
                        continue
                    }
                }
                if Date().timeIntervalSince(lastCleanup) > 30 {
                    try JobStore.clearStaleOutbox(on: db)
                    lastCleanup = Date()
                }
                // Enqueued during the pass (the usual case under load): straight to the next pass,
                // without asking the database when the next retry is due. Otherwise wait for a
                // notification or the next due job, settling confirms as they arrive. A standby
                // does not listen: it looks again in a second.
                let notifiedDuringPass = leading ? !(try db.waitForNotifications(timeout: 0)).isEmpty : false
                if !notifiedDuringPass {
                    var wait = 1.0
                    if leading { wait = min(0.5, max(0.001, try JobStore.secondsUntilNextDue(on: db) ?? 0.5)) }
                    let deadline = ContinuousClock.now + .seconds(wait)
                    while !owner.isStopping {
                        let notified = try Self.waitForEither(db: db, mq: mq, until: deadline)
                        try settle(&window, declared: &declared, db: db, mq: mq)
                        if notified || ContinuousClock.now >= deadline { break }
                    }
                }
                backoff.reset()
            } catch {
                if let error = error as? PostgresError, !error.isConnectionLost {
                    logger.error("outbox relay query failed", metadata: ["error": "\(error)"])
                } else {
                    logger.warning("outbox relay lost a connection, reconnecting", metadata: ["error": "\(error)"])
                }
                if error is AMQPError || !(broker?.isOpen ?? false) {
                    abandonBroker()
                    // A leader that cannot publish hands the lead on (closing the session frees the lock).
                    if leading { database?.close(); database = nil }
                }
                if !(database?.isOK ?? false) { database?.close(); database = nil }
                if database == nil { health.markDown(.relayDatabase) }
                if broker == nil { health.markDown(.relayBroker) }
                owner.sleep(backoff.next())
            }
        }
        // Stopping: what is in flight is confirmed, or flagged again.
        if !window.isEmpty, let mq = broker {
            if (try? mq.waitForConfirms(timeout: 5)) != nil, let db = database {
                var declared = Set<String>()
                try? settle(&window, declared: &declared, db: db, mq: mq)
            }
        }
        flagInFlightAgain()
        database?.close()
        broker?.close()
    }

    /// Batches a relay has in flight at most (each up to ``batchSize`` jobs).
    static let windowCapacity = 8
    /// Seconds the oldest batch in flight may wait for its confirms before the channel counts as failed.
    static let confirmTimeout = 30.0

    /// Takes in what the broker answered: returned messages are flagged again and their queues
    /// declared anew, nacked ones fail the channel (every batch in flight is flagged again by the
    /// caller), and confirmed batches leave the window.
    @available(*, noasync)
    private func settle(_ window: inout PublishWindow, declared: inout Set<String>,
                        db: PostgresConnection, mq: AMQPConnection) throws {
        try mq.processReceivedFrames()
        let nacked = mq.takeNacked()
        if !nacked.isEmpty { throw AMQPError(.nacked, "broker rejected \(nacked.count) published messages") }
        // Confirmed but unroutable (the queue was deleted after we declared it): not published;
        // declared again before the next try.
        let returned = Set(mq.takeReturned().compactMap { message -> UUID? in
            UUID(uuidString: String(decoding: message.body, as: UTF8.self))
        })
        if !returned.isEmpty {
            declared.subtract(window.queues(of: returned))
            logger.warning("outbox relay: the broker returned unroutable jobs; declaring their queues again",
                           metadata: ["count": "\(returned.count)"])
            Counter(label: "reparto_outbox_returned_total").increment(by: returned.count)
            try JobStore.restorePending(Array(returned), on: db)
        }
        window.retire(confirmed: mq.isConfirmed(through:))
        if let oldest = window.oldestPublishedAt, ContinuousClock.now - oldest > .seconds(Self.confirmTimeout) {
            throw AMQPError(.timeout, "publishes not confirmed within \(Self.confirmTimeout) s")
        }
    }

    /// Waits until `deadline` for a notification on `db` or a frame on `mq`, whichever comes
    /// first; returns whether notifications arrived.
    @available(*, noasync)
    private static func waitForEither(db: PostgresConnection, mq: AMQPConnection, until deadline: ContinuousClock.Instant) throws -> Bool {
        if !(try db.waitForNotifications(timeout: 0)).isEmpty { return true }
        if mq.hasBufferedFrames { return false }
        let left = ContinuousClock.now.duration(to: deadline)
        guard left > .zero else { return false }
        var descriptors = [pollfd(fd: db.socketDescriptor, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: mq.socketDescriptor, events: Int16(POLLIN), revents: 0)]
        let ready = poll(&descriptors, 2, left.pollTimeoutMilliseconds)
        if ready < 0 && errno != EINTR {
            throw PostgresError(.connection, message: "poll() failed on the relay's sockets (errno \(errno))")
        }
        return !(try db.waitForNotifications(timeout: 0)).isEmpty
    }

    /// What one publishing transaction did.
    private struct BatchPass {
        var published = 0
        var declared: Set<String>
        /// The broker closed the channel (a refused declare): reconnect before publishing more.
        var channelLost = false
    }

    /// Publishes one batch of due jobs: takes them (which clears their publish flag), declares
    /// their queues (failing the jobs of a queue the broker refuses), publishes them mandatory and
    /// waits for the confirms; what the broker returned or did not confirm is flagged again. A
    /// method of its own: inside the relay's loop, the closure's captured state made one function
    /// the compiler needed minutes for.
    @available(*, noasync)
    private func publishBatch(db: PostgresConnection, mq: AMQPConnection, overdueBy: Double,
                              declared: Set<String>, window: inout PublishWindow) throws -> BatchPass {
        var pass = BatchPass(declared: declared)
        let entries = try JobStore.takeOutbox(limit: batchSize, overdueBy: overdueBy, on: db)
        guard !entries.isEmpty else { return pass }
        pass.published = entries.count
        do {
            for queue in Set(entries.map(\.queue)).subtracting(pass.declared).sorted() {
                do {
                    try JobTopology.declare(queue: queue, namespace: namespace, on: mq)
                    pass.declared.insert(queue)
                } catch let error as AMQPError where Self.isRefusal(error) {
                    // Only this queue's jobs fail; the rest go out once the channel is back.
                    let ids = entries.filter { $0.queue == queue }.map(\.id)
                    let name = JobTopology.queueName(queue, namespace: namespace)
                    try JobStore.failUnpublishable(ids, reason: "the broker refused queue \(name): \(error.message)", on: db)
                    try JobStore.restorePending(entries.filter { $0.queue != queue }.map(\.id), on: db)
                    logger.error("outbox relay: a queue cannot be declared; its jobs are dead", metadata: [
                        "queue": "\(queue)", "jobs": "\(ids.count)", "error": "\(error)"])
                    pass.channelLost = true
                    pass.published = ids.count
                    return pass
                }
            }
            let lastTag = try mq.publish(entries.map { $0.message(namespace: namespace) })
            window.add(entries, lastTag: lastTag, at: .now)
        } catch {
            // Not known to be in the broker: flagged again (a copy that did get there is dropped
            // at claim). If this fails too, the comparison with the broker's queues finds them.
            try? JobStore.restorePending(entries.map(\.id), on: db)
            throw error
        }
        return pass
    }

    /// A broker's permanent refusal of a declare: 406 PRECONDITION_FAILED (other arguments),
    /// 403 ACCESS_REFUSED (permissions), 405 RESOURCE_LOCKED (an exclusive queue of another connection).
    static func isRefusal(_ error: AMQPError) -> Bool {
        [403, 405, 406].contains(error.replyCode ?? 0)
    }

    /// Compares, per queue, the jobs waiting in the database since their publish with the
    /// broker's ready messages and the deliveries workers hold unclaimed, and marks the difference
    /// (oldest first) to be published again. Returns true when the broker channel was closed by a
    /// missing queue (reconnect first).
    @available(*, noasync)
    private func republishLost(db: PostgresConnection, mq: AMQPConnection) throws -> Bool {
        for (queue, waiting) in try JobStore.publishedWaitingByQueue(olderThan: lostGrace, on: db) {
            // nil: the queue was deleted, and every waiting job's message went with it.
            let count = try readyMessages(in: queue, on: mq)
            let ready = count ?? 0
            let held = count == nil ? 0
                : try JobStore.heldDeliveries(routingKey: JobTopology.routingKey(queue, namespace: namespace), on: db)
            let lost = Self.lostMessages(waiting: waiting, ready: ready, held: held)
            if lost > 0 {
                let marked = try JobStore.republish(queue: queue, count: lost, olderThan: lostGrace, on: db)
                if marked > 0 {
                    logger.warning("the broker lost published jobs; publishing them again", metadata: [
                        "queue": "\(queue)", "waiting": "\(waiting)", "broker_ready": "\(ready)", "held_by_workers": "\(held)",
                        "republished": "\(marked)"])
                    Counter(label: "reparto_outbox_republished_total").increment(by: marked)
                }
            }
            if count == nil { return true }
        }
        return false
    }

    /// How many of a queue's `waiting` published jobs have no message: those neither ready in the
    /// broker's queue nor held unclaimed by a worker. Held counts are up to a heartbeat old: a
    /// count too high only leaves a lost message for a later comparison, one too low publishes a
    /// job twice (the duplicate is dropped at claim).
    static func lostMessages(waiting: Int, ready: Int, held: Int) -> Int {
        max(0, waiting - ready - max(0, held))
    }

    /// The ready messages of a queue, or nil when the broker has no such queue (which closes the
    /// channel). A function of its own: the do/catch of a typed throw with a `where` clause, inline
    /// in the loop above, sent the compiler's AllocBoxToStack pass into minutes of work.
    @available(*, noasync)
    private func readyMessages(in queue: String, on mq: AMQPConnection) throws(AMQPError) -> Int? {
        do {
            return try mq.messageCount(JobTopology.queueName(queue, namespace: namespace))
        } catch {
            if error.replyCode == 404 { return nil }
            throw error
        }
    }
}
