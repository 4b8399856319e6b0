import AMQP

/// The RabbitMQ objects Reparto uses, and their declaration (idempotent).
///
/// - `reparto.jobs`: a direct exchange; the routing key is the job's queue name.
/// - `reparto.q.<queue>`: one durable classic queue per queue name, with `x-max-priority` (job
///   priorities; quorum queues in RabbitMQ 3.10 have none) and dead-lettering to `reparto.dead`.
/// - `reparto.dead` (fanout) → `reparto.dead`: a durable quorum queue holding the messages of jobs
///   that died, for inspection; the job's error is kept in PostgreSQL.
///
/// Retries are not parked in RabbitMQ: a failed attempt is committed with its `run_after` and the
/// outbox relay republishes it when due (see docs/architecture.md), which survives any crash.
public enum JobTopology {
    public static let exchange = "reparto.jobs"
    public static let deadExchange = "reparto.dead"
    public static let deadQueue = "reparto.dead"

    public static func queueName(_ queue: String) -> String { "reparto.q.\(queue)" }

    /// Declares the exchanges and the dead-letter queue.
    @available(*, noasync)
    public static func declareBase(on connection: AMQPConnection) throws {
        try connection.declareExchange(exchange, type: "direct", durable: true)
        try connection.declareExchange(deadExchange, type: "fanout", durable: true)
        try connection.declareQueue(deadQueue, durable: true, arguments: ["x-queue-type": .string("quorum")])
        try connection.bindQueue(deadQueue, exchange: deadExchange, routingKey: "")
    }

    /// Declares one work queue and binds it.
    @available(*, noasync)
    public static func declare(queue: String, on connection: AMQPConnection) throws {
        let name = queueName(queue)
        try connection.declareQueue(name, durable: true, arguments: [
            "x-max-priority": .long(9),
            "x-dead-letter-exchange": .string(deadExchange),
        ])
        try connection.bindQueue(name, exchange: exchange, routingKey: queue)
    }
}
