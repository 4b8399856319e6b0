import AMQP

/// Where a worker's deliveries come from and where its acknowledgements go: RabbitMQ in
/// production (``AMQPJobTransport``), an in-memory queue in unit tests.
///
/// A delivery's body is the job id. Acks and rejects may be called from any task; a delivery
/// rejected with `requeue: false` goes to the dead-letter queue.
public protocol JobTransport: Sendable {
    /// The deliveries, until the transport closes.
    var deliveries: AsyncStream<AMQPDelivery> { get }
    /// Starts receiving (connects and consumes).
    func start()
    /// Done with the message.
    func ack(_ delivery: AMQPDelivery)
    /// Returns the message to its queue (`requeue`) or dead-letters it.
    func reject(_ delivery: AMQPDelivery, requeue: Bool)
    /// No new deliveries; acks still go out until ``close()``.
    func stopConsuming()
    /// Sends the last acks and ends ``deliveries``.
    func close() async
}

/// RabbitMQ as a ``JobTransport``: an `AMQPConsumer` (one owner thread, reconnecting, coalesced acks).
public struct AMQPJobTransport: JobTransport {
    public let consumer: AMQPConsumer

    public init(consumer: AMQPConsumer) { self.consumer = consumer }

    public var deliveries: AsyncStream<AMQPDelivery> { consumer.deliveries }
    public func start() { consumer.start() }
    public func ack(_ delivery: AMQPDelivery) { consumer.ack(delivery) }
    public func reject(_ delivery: AMQPDelivery, requeue: Bool) { consumer.reject(delivery, requeue: requeue) }
    public func stopConsuming() { consumer.stopConsuming() }
    public func close() async { await consumer.close() }
}
