import AMQP
import Foundation
import Logging
import Metrics
import Postgres
import Threading

/// Publishes committed jobs to RabbitMQ: the transactional outbox's relay.
///
/// One dedicated thread owns a PostgreSQL connection and an AMQP connection. In one transaction
/// it locks a batch of due, unpublished jobs (`FOR UPDATE SKIP LOCKED`, so any number of relays
/// share the work), publishes them persistently, waits for the broker's confirms for the whole
/// batch, marks them published and commits. A crash before the commit republishes the batch
/// (consumers drop duplicates when they claim); nothing is lost. It wakes on `NOTIFY
/// reparto_outbox` and when the next scheduled retry is due.
public final class OutboxRelay: Sendable {
    private let postgres: PostgresConfiguration
    private let amqp: AMQPConfiguration
    private let logger: Logger
    private let batchSize: Int
    private let namespace: String
    private let thread = OwnedThread(name: "reparto-outbox-relay")
    /// The relay's connections, for readiness (shared with the worker or coordinator that runs it).
    public let health: ConnectionHealth

    /// - Parameter health: where the relay reports its PostgreSQL and AMQP connections (a new one when nil).
    public init(postgres: PostgresConfiguration, amqp: AMQPConfiguration, namespace: String = "", logger: Logger,
                batchSize: Int = 1000, health: ConnectionHealth? = nil) {
        let health = health ?? ConnectionHealth()
        health.require(.relayDatabase)
        health.require(.relayBroker)
        self.health = health
        self.namespace = namespace
        self.postgres = postgres
        self.amqp = amqp
        self.logger = logger
        self.batchSize = batchSize
    }

    public func start() { thread.start { [self] owner in loop(owner) } }

    public func stop() async { await thread.stop() }

    private func loop(_ owner: OwnedThread) {
        var database: PostgresConnection?
        var broker: AMQPConnection?
        var declared = Set<String>()
        var backoff = Backoff(initial: 0.1, maximum: 5)
        var lastCleanup = Date.distantPast
        while !owner.isStopping {
            do {
                if database == nil {
                    let connection = try PostgresConnection.connect(postgres)
                    try connection.listen(JobStore.outboxChannel)
                    database = connection
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
                var published = batchSize
                while published == batchSize && !owner.isStopping {
                    published = try db.transaction { connection -> Int in
                        let entries = try JobStore.takeOutbox(limit: batchSize, on: connection)
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
                let untilDue = try JobStore.secondsUntilNextDue(on: db)
                let wait = min(0.5, max(0.001, untilDue ?? 0.5))
                _ = try db.waitForNotifications(timeout: wait)
                try mq.poll(timeout: 0) // heartbeats
                backoff.reset()
            } catch {
                if let error = error as? PostgresError, !error.isConnectionLost {
                    logger.error("outbox relay query failed", metadata: ["error": "\(error)"])
                } else {
                    logger.warning("outbox relay lost a connection, reconnecting", metadata: ["error": "\(error)"])
                }
                if !(database?.isOK ?? false) { database?.close(); database = nil }
                if error is AMQPError || !(broker?.isOpen ?? false) { broker?.abandon(); broker = nil }
                if database == nil { health.markDown(.relayDatabase) }
                if broker == nil { health.markDown(.relayBroker) }
                owner.sleep(backoff.next())
            }
        }
        database?.close()
        broker?.close()
    }
}
