import Foundation
import Logging
import Synchronization
import Threading

/// A reconnecting consumer whose rabbitmq-c connection is owned by one dedicated thread.
///
/// Deliveries are handed, in batches, to the receiver given to ``start(receive:)``, on the owning
/// thread itself; acks and rejects are queued with ``ack(_:)`` and
/// ``reject(_:requeue:)`` from any task and sent by the owning thread, coalesced into one
/// `multiple` ack where the acknowledged tags form a contiguous prefix. After a reconnect the
/// generation increases and acks for deliveries of older generations are dropped (the broker has
/// already requeued those messages).
public final class AMQPConsumer: Sendable {
    /// What to consume and how.
    public struct Settings: Sendable {
        public var queues: [String]
        public var prefetch: Int
        /// Declares the topology on each new connection, before consuming.
        public var setup: @Sendable (AMQPConnection) throws -> Void
        /// First delay between reconnect attempts; doubles up to 5 s.
        public var reconnectDelay: Double

        public init(queues: [String], prefetch: Int, reconnectDelay: Double = 0.2,
                    setup: @escaping @Sendable (AMQPConnection) throws -> Void = { _ in }) {
            self.queues = queues
            self.prefetch = prefetch
            self.setup = setup
            self.reconnectDelay = reconnectDelay
        }
    }

    private enum Command {
        case ack(UInt64, generation: Int)
        case reject(UInt64, generation: Int, requeue: Bool)
        case stopConsuming
    }

    private struct Shared {
        var commands: [Command] = []
        var exit = false
        var connected = false
        var started = false
    }

    private let configuration: AMQPConfiguration
    private let settings: Settings
    private let logger: Logger
    private let shared = Mutex(Shared())
    private let onConnect: @Sendable (Int) -> Void
    private let onDisconnect: @Sendable () -> Void
    private let finished = Mutex<[CheckedContinuation<Void, Never>]>([])
    private let threadDone = Mutex(false)

    /// - Parameters:
    ///   - onConnect: called on the consumer thread with the new generation after each (re)connect.
    ///   - onDisconnect: called on the consumer thread when the connection is lost (health signalling).
    public init(configuration: AMQPConfiguration, settings: Settings, logger: Logger,
                onConnect: @escaping @Sendable (Int) -> Void = { _ in },
                onDisconnect: @escaping @Sendable () -> Void = {}) {
        self.configuration = configuration
        self.settings = settings
        self.logger = logger
        self.onConnect = onConnect
        self.onDisconnect = onDisconnect
    }

    /// Starts the owning thread (once), which hands deliveries to `receive` itself: each call gets
    /// the deliveries that had arrived, in order (those already read from the socket, up to the
    /// prefetch). `receive` runs on the owning thread, off Swift's cooperative pool, so it may
    /// block briefly (a worker claims its jobs there); acks and reading wait meanwhile.
    public func start(receive: @escaping @Sendable ([AMQPDelivery]) -> Void) {
        let first = shared.withLock { state in
            defer { state.started = true }
            return !state.started
        }
        guard first else { return }
        let thread = Thread { [self] in
            ThreadName.nameCurrentThread("reparto-consume")
            run(receive: receive)
        }
        thread.start()
    }

    /// Acknowledges a delivery once its result is committed.
    public func ack(_ delivery: AMQPDelivery) {
        shared.withLock { $0.commands.append(.ack(delivery.deliveryTag, generation: delivery.generation)) }
    }

    /// Rejects a delivery: requeued, or dead-lettered through the queue's dead-letter exchange.
    public func reject(_ delivery: AMQPDelivery, requeue: Bool) {
        shared.withLock { $0.commands.append(.reject(delivery.deliveryTag, generation: delivery.generation, requeue: requeue)) }
    }

    /// Cancels the consumers: no new deliveries; acks still go out until ``close()``.
    public func stopConsuming() {
        shared.withLock { $0.commands.append(.stopConsuming) }
    }

    /// True while connected to the broker.
    public var isConnected: Bool { shared.withLock { $0.connected } }

    /// Sends the queued acks, closes the connection (unacked messages return to their queues) and
    /// waits for the owning thread to end.
    public func close() async {
        shared.withLock { $0.exit = true }
        let started = shared.withLock { $0.started }
        guard started else { return }
        await waitUntilClosed()
    }

    /// Returns once the owning thread ended, after ``close()`` (at once if it did already).
    public func waitUntilClosed() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let done = threadDone.withLock { done in
                if !done { finished.withLock { $0.append(waiter) } }
                return done
            }
            if done { waiter.resume() }
        }
    }

    // MARK: the owning thread

    @available(*, noasync)
    private func run(receive: @Sendable ([AMQPDelivery]) -> Void) {
        var connection: AMQPConnection?
        var generation = 0
        var consuming = true
        var outstanding = AckWindow()
        var backoff = Backoff(initial: settings.reconnectDelay, maximum: max(5, settings.reconnectDelay))
        while true {
            let (commands, exit) = shared.withLock { state in
                defer { state.commands.removeAll(keepingCapacity: true) }
                return (state.commands, state.exit)
            }
            if connection == nil && !exit {
                do {
                    let fresh = try AMQPConnection.connect(configuration)
                    try settings.setup(fresh)
                    try fresh.setPrefetch(settings.prefetch)
                    if consuming {
                        for queue in settings.queues { try fresh.consume(queue: queue, consumerTag: Self.consumerTag(queue)) }
                    }
                    generation += 1
                    outstanding = AckWindow()
                    connection = fresh
                    backoff.reset()
                    shared.withLock { $0.connected = true }
                    onConnect(generation)
                    logger.info("consuming", metadata: ["queues": "\(settings.queues.joined(separator: ","))", "generation": "\(generation)"])
                } catch {
                    let delay = backoff.next()
                    logger.warning("cannot connect to RabbitMQ, retrying", metadata: ["error": "\(error)", "retry_in_s": "\(delay)"])
                    Thread.sleep(forTimeInterval: delay)
                    // Commands for a connection that is gone are dropped; stopConsuming is remembered.
                    if commands.contains(where: { if case .stopConsuming = $0 { return true } else { return false } }) { consuming = false }
                    continue
                }
            }
            do {
                if let live = connection {
                    for command in commands {
                        switch command {
                        case .ack(let tag, let gen) where gen == generation:
                            outstanding.complete(tag)
                        case .reject(let tag, let gen, let requeue) where gen == generation:
                            outstanding.remove(tag)
                            try live.nack(tag, requeue: requeue)
                        case .stopConsuming where consuming:
                            consuming = false
                            for queue in settings.queues { try live.cancel(consumerTag: Self.consumerTag(queue)) }
                        default:
                            break
                        }
                    }
                    let (multiple, singles) = outstanding.takeAckable()
                    if let multiple { try live.ack(multiple, multiple: true) }
                    for tag in singles { try live.ack(tag) }
                }
                if exit {
                    connection?.close()
                    connection = nil
                    break
                }
                if let live = connection {
                    let busy = !outstanding.isEmpty
                    if let delivery = try live.nextDelivery(timeout: busy ? 0.002 : 0.05, generation: generation) {
                        outstanding.insert(delivery.deliveryTag)
                        var batch = [delivery]
                        while batch.count < settings.prefetch,
                              let next = try live.nextDelivery(timeout: 0, generation: generation) {
                            outstanding.insert(next.deliveryTag)
                            batch.append(next)
                        }
                        receive(batch)
                    }
                }
            } catch {
                logger.warning("RabbitMQ connection lost, reconnecting", metadata: ["error": "\(error)"])
                connection?.abandon()
                connection = nil
                shared.withLock { $0.connected = false }
                onDisconnect()
            }
        }
        shared.withLock { $0.connected = false }
        let waiters = threadDone.withLock { done in
            done = true
            return finished.withLock { list in defer { list.removeAll() }; return list }
        }
        waiters.forEach { $0.resume() }
    }

    private static func consumerTag(_ queue: String) -> String { "reparto-\(queue)" }
}
