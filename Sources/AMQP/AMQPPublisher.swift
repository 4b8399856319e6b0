import Foundation
import Logging
import Synchronization

/// A confirmed publisher whose rabbitmq-c connection is owned by one dedicated thread.
///
/// ``publish(_:)`` hands a batch to the thread, which publishes every message persistently and
/// waits for the broker's confirms for the whole window at once (not one round trip per
/// message). A lost connection fails the batch in flight and is re-established on the next one.
public final class AMQPPublisher: Sendable {
    private struct Work {
        var messages: [AMQPOutgoingMessage]
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct Shared {
        var queue: [Work] = []
        var exit = false
        var started = false
        var connected = false
    }

    private let configuration: AMQPConfiguration
    private let setup: @Sendable (AMQPConnection) throws -> Void
    private let logger: Logger
    private let confirmTimeout: Double
    // NSCondition guards `shared` for the owning thread's waits; it is only touched under its lock.
    private let condition = NSConditionBox()
    private let shared = Mutex(Shared())

    /// - Parameter setup: declares the topology on each new connection.
    public init(configuration: AMQPConfiguration, logger: Logger, confirmTimeout: Double = 30,
                setup: @escaping @Sendable (AMQPConnection) throws -> Void = { _ in }) {
        self.configuration = configuration
        self.setup = setup
        self.logger = logger
        self.confirmTimeout = confirmTimeout
    }

    /// True while the owning thread holds a live connection.
    public var isConnected: Bool { shared.withLock { $0.connected } }

    /// Publishes the batch and returns once the broker confirmed all of it.
    ///
    /// Throws ``AMQPError`` when the connection fails or any message is nacked; the caller retries
    /// (some messages may then be delivered twice, which consumers must tolerate).
    public func publish(_ messages: [AMQPOutgoingMessage]) async throws {
        if messages.isEmpty { return }
        startIfNeeded()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let closed = shared.withLock { state in
                if state.exit { return true }
                state.queue.append(Work(messages: messages, continuation: continuation))
                return false
            }
            if closed { continuation.resume(throwing: AMQPError(.closed, "publisher is closed")); return }
            condition.signal()
        }
    }

    /// Stops the thread; batches not yet taken fail with ``AMQPError/Kind/closed``.
    public func close() {
        let pending = shared.withLock { state in
            state.exit = true
            defer { state.queue.removeAll() }
            return state.queue
        }
        pending.forEach { $0.continuation.resume(throwing: AMQPError(.closed, "publisher is closed")) }
        condition.signal()
    }

    private func startIfNeeded() {
        let first = shared.withLock { state in
            defer { state.started = true }
            return !state.started
        }
        guard first else { return }
        let thread = Thread { [self] in run() }
        thread.name = "reparto-amqp-publisher"
        thread.start()
    }

    private func run() {
        var connection: AMQPConnection?
        while true {
            let (work, exit) = shared.withLock { state -> ([Work], Bool) in
                defer { state.queue.removeAll() }
                return (state.queue, state.exit)
            }
            if exit { break }
            if work.isEmpty {
                // Idle: service heartbeats, then sleep until work arrives.
                if let live = connection {
                    do { try live.poll(timeout: 0) } catch {
                        connection = nil
                        shared.withLock { $0.connected = false }
                    }
                }
                condition.wait(timeout: 1)
                continue
            }
            for item in work {
                do {
                    let live: AMQPConnection
                    if let connection { live = connection } else {
                        live = try AMQPConnection.connect(configuration)
                        try setup(live)
                        try live.enableConfirms()
                        connection = live
                        shared.withLock { $0.connected = true }
                    }
                    for message in item.messages { try live.publish(message) }
                    try live.waitForConfirms(timeout: confirmTimeout)
                    item.continuation.resume()
                } catch {
                    if let amqp = error as? AMQPError, amqp.kind == .nacked {
                        // The channel is still usable after a nack.
                    } else {
                        connection?.abandon()
                        connection = nil
                        shared.withLock { $0.connected = false }
                    }
                    item.continuation.resume(throwing: error)
                }
            }
        }
        connection?.close()
        shared.withLock { $0.connected = false }
    }
}

/// A condition variable for the owning thread to sleep on; only dedicated threads wait on it.
// @unchecked Sendable: NSCondition is thread-safe by design; it is just not annotated.
final class NSConditionBox: @unchecked Sendable {
    private let condition = NSCondition()
    private var signalled = false

    func signal() {
        condition.lock()
        signalled = true
        condition.signal()
        condition.unlock()
    }

    func wait(timeout: Double) {
        condition.lock()
        if !signalled { _ = condition.wait(until: Date().addingTimeInterval(timeout)) }
        signalled = false
        condition.unlock()
    }
}
