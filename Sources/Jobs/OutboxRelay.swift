import AMQP
import Foundation
import Logging
import Metrics
import Postgres
import Threading

/// Publishes committed jobs to RabbitMQ: the transactional outbox's relay.
///
/// One dedicated thread owns a PostgreSQL connection and an AMQP connection. In one transaction
/// it locks a batch of due, unpublished jobs (`FOR UPDATE SKIP LOCKED`), publishes them
/// persistently, waits for the broker's confirms for the whole batch, marks them published and
/// commits. A crash before the commit republishes the batch (consumers drop duplicates when
/// they claim); nothing is lost.
///
/// Every worker and coordinator runs a relay, and one of them leads: the holder of a session
/// advisory lock (released when its connection ends, or given up when it loses the broker). The
/// leader wakes on `NOTIFY reparto_outbox` and when the next scheduled retry is due. The others
/// stand by: once a second they try to lead, and publish only what has been due for
/// ``standbyGrace`` seconds, so a stalled leader (alive, but not publishing) delays jobs by that
/// much and no more. Relays that all publish everything contend for the same rows and pages:
/// one leader published more jobs a second than every relay together.
public final class OutboxRelay: Sendable {
    private let postgres: PostgresConfiguration
    private let amqp: AMQPConfiguration
    private let logger: Logger
    private let batchSize: Int
    private let namespace: String
    private let thread = OwnedThread(name: "reparto-outbox-relay")
    /// Seconds a job may wait for the leading relay before a standby publishes it.
    private let standbyGrace: Double
    /// The relays' leader lock: one per namespace, apart from the coordinators' and the migrators'.
    private let lockKey: Int64
    /// The relay's connections, for readiness (shared with the worker or coordinator that runs it).
    public let health: ConnectionHealth

    /// - Parameter health: where the relay reports its PostgreSQL and AMQP connections (a new one when nil).
    /// - Parameter standbyGrace: seconds a due job waits for the leading relay before a standby publishes it.
    public init(postgres: PostgresConfiguration, amqp: AMQPConfiguration, namespace: String = "", logger: Logger,
                batchSize: Int = 1000, health: ConnectionHealth? = nil, standbyGrace: Double = 5) {
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
        self.lockKey = Self.lockKey(namespace: namespace)
    }

    /// "repartr" plus a hash of the namespace in the low bits: clusters sharing a database each get a leader.
    static func lockKey(namespace: String) -> Int64 {
        var hash: UInt32 = 2_166_136_261  // FNV-1a: stable across processes, unlike Hasher
        for byte in namespace.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return 0x7265_7061_7274_72 << 8 ^ Int64(hash & 0xff_ffff)
    }

    public func start() { thread.start { [self] owner in loop(owner) } }

    public func stop() async { await thread.stop() }

    private func loop(_ owner: OwnedThread) {
        var database: PostgresConnection?
        var broker: AMQPConnection?
        var declared = Set<String>()
        var backoff = Backoff(initial: 0.1, maximum: 5)
        var lastCleanup = Date.distantPast
        var leading = false
        var lastLeadAttempt = Date.distantPast
        while !owner.isStopping {
            do {
                if database == nil {
                    database = try PostgresConnection.connect(postgres)
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
                while published == batchSize && !owner.isStopping {
                    published = try db.transaction { connection -> Int in
                        let entries = try JobStore.takeOutbox(limit: batchSize, overdueBy: overdueBy, on: connection)
                        guard !entries.isEmpty else { return 0 }
                        for entry in entries {
                            if !declared.contains(entry.queue) {
                                try JobTopology.declare(queue: entry.queue, namespace: namespace, on: mq)
                                declared.insert(entry.queue)
                            }
                            try mq.publish(AMQPOutgoingMessage(
                                exchange: JobTopology.exchange, routingKey: JobTopology.routingKey(entry.queue, namespace: namespace),
                                body: Array(entry.id.uuidString.lowercased().utf8),
                                properties: AMQPMessageProperties(persistent: true, priority: UInt8(clamping: entry.priority),
                                                                  messageID: entry.id.uuidString.lowercased(), type: entry.kind)))
                        }
                        try mq.waitForConfirms(timeout: 30)
                        try JobStore.markPublished(entries.map(\.id), on: connection)
                        return entries.count
                    }
                    if published > 0 { Counter(label: "reparto_outbox_published_total").increment(by: published) }
                }
                if Date().timeIntervalSince(lastCleanup) > 30 {
                    try JobStore.clearStaleOutbox(on: db)
                    lastCleanup = Date()
                }
                if leading {
                    let untilDue = try JobStore.secondsUntilNextDue(on: db)
                    _ = try db.waitForNotifications(timeout: min(0.5, max(0.001, untilDue ?? 0.5)))
                } else {
                    _ = try db.waitForNotifications(timeout: 1)  // not listening: a check of the connection once a second
                }
                try mq.poll(timeout: 0) // heartbeats
                backoff.reset()
            } catch {
                if let error = error as? PostgresError, !error.isConnectionLost {
                    logger.error("outbox relay query failed", metadata: ["error": "\(error)"])
                } else {
                    logger.warning("outbox relay lost a connection, reconnecting", metadata: ["error": "\(error)"])
                }
                if error is AMQPError || !(broker?.isOpen ?? false) {
                    broker?.abandon(); broker = nil
                    // A leader that cannot publish hands the lead on (closing the session frees the lock).
                    if leading { database?.close(); database = nil }
                }
                if !(database?.isOK ?? false) { database?.close(); database = nil }
                if database == nil { health.markDown(.relayDatabase) }
                if broker == nil { health.markDown(.relayBroker) }
                owner.sleep(backoff.next())
            }
        }
        database?.close()
        broker?.close()
    }
}
