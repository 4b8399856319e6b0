import AMQP

/// Where a worker's deliveries come from and where its acknowledgements go: RabbitMQ in
/// production (``AMQPJobTransport``), an in-memory queue in unit tests.
///
/// A delivery's body is the job id. Acks and rejects may be called from any task; a delivery
/// rejected with `requeue: false` goes to the dead-letter queue.
public protocol JobTransport: Sendable {
    /// Receives until ``close()``: connects, consumes, and hands each batch of deliveries, in
    /// order, to `receive`, then returns once the transport closed. `receive` runs on a thread
    /// that is not Swift's cooperative pool (RabbitMQ's: the consumer's own thread), so it may
    /// block briefly: the worker claims the jobs there, saving two thread hand-offs a batch.
    func run(receive: @escaping @Sendable ([AMQPDelivery]) -> Void) async
    /// Done with the message.
    func ack(_ delivery: AMQPDelivery)
    /// Returns the message to its queue (`requeue`) or dead-letters it.
    func reject(_ delivery: AMQPDelivery, requeue: Bool)
    /// No new deliveries; acks still go out until ``close()``.
    func stopConsuming()
    /// Sends the last acks and stops receiving: ``run(receive:)`` returns, and `receive` is not
    /// called again.
    func close() async
}

/// RabbitMQ as a ``JobTransport``: an `AMQPConsumer` (one owner thread, reconnecting, coalesced acks).
public struct AMQPJobTransport: JobTransport {
    public let consumer: AMQPConsumer

    public init(consumer: AMQPConsumer) { self.consumer = consumer }

    public func run(receive: @escaping @Sendable ([AMQPDelivery]) -> Void) async {
        consumer.start(receive: receive)
        await consumer.waitUntilClosed()
    }
    public func ack(_ delivery: AMQPDelivery) { consumer.ack(delivery) }
    public func reject(_ delivery: AMQPDelivery, requeue: Bool) { consumer.reject(delivery, requeue: requeue) }
    public func stopConsuming() { consumer.stopConsuming() }
    public func close() async { await consumer.close() }
}
