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

    /// The routing key of a queue: the queue name, prefixed by the namespace when there is one.
    /// Namespaces let several clusters (or test runs) share one broker without sharing queues.
    public static func routingKey(_ queue: String, namespace: String) -> String {
        namespace.isEmpty ? queue : "\(namespace).\(queue)"
    }

    public static func queueName(_ queue: String, namespace: String) -> String {
        "reparto.q.\(routingKey(queue, namespace: namespace))"
    }

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
    public static func declare(queue: String, namespace: String, on connection: AMQPConnection) throws {
        let name = queueName(queue, namespace: namespace)
        try connection.declareQueue(name, durable: true, arguments: [
            "x-max-priority": .long(9),
            "x-dead-letter-exchange": .string(deadExchange),
        ])
        try connection.bindQueue(name, exchange: exchange, routingKey: routingKey(queue, namespace: namespace))
    }
}
