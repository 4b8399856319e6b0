import AMQP
import RepartoRuntime
import Synchronization

/// A ``JobTransport`` in memory: tests deliver job ids and wait for the worker to settle them.
/// A delivery is handed to the worker on the thread that delivers it (before the worker runs:
/// once it does).
public final class InMemoryJobTransport: JobTransport {
    /// What became of a delivery.
    public enum Settlement: Sendable, Equatable {
        case ack
        case reject(requeue: Bool)
    }

    private struct State {
        var nextTag: UInt64 = 1
        var settled: [UInt64: Settlement] = [:]
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var consuming = true
        var receive: (@Sendable ([AMQPDelivery]) -> Void)?
        /// Delivered before the worker ran.
        var early: [AMQPDelivery] = []
        var closed = false
        var running: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    public init() {}

    /// Delivers a message whose body is `body` (a job id, normally); returns it.
    @discardableResult
    public func deliver(_ body: String, redelivered: Bool = false) -> AMQPDelivery {
        let tag = state.withLock { state in
            defer { state.nextTag += 1 }
            return state.nextTag
        }
        let delivery = AMQPDelivery(deliveryTag: tag, redelivered: redelivered, exchange: "reparto.jobs", routingKey: "default",
                                    consumerTag: "test", body: Array(body.utf8), type: nil, messageID: nil, priority: nil,
                                    generation: 1)
        let receive = state.withLock { state -> (@Sendable ([AMQPDelivery]) -> Void)? in
            if state.closed { return nil }
            if state.receive == nil { state.early.append(delivery) }
            return state.receive
        }
        receive?([delivery])
        return delivery
    }

    /// Waits until at least `count` deliveries were acked or rejected; returns every settlement by tag.
    public func settlements(atLeast count: Int) async -> [UInt64: Settlement] {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            state.withLock { state in
                if state.settled.count >= count { waiter.resume() } else { state.waiters.append((count, waiter)) }
            }
        }
        return state.withLock { $0.settled }
    }

    /// Whether ``stopConsuming()`` was called.
    public var isConsuming: Bool { state.withLock { $0.consuming } }

    public func run(receive: @escaping @Sendable ([AMQPDelivery]) -> Void) async {
        let early = state.withLock { state in
            state.receive = receive
            defer { state.early.removeAll() }
            return state.early
        }
        if !early.isEmpty { receive(early) }
        await withCheckedContinuation { (running: CheckedContinuation<Void, Never>) in
            let closed = state.withLock { state in
                if !state.closed { state.running = running }
                return state.closed
            }
            if closed { running.resume() }
        }
    }

    public func ack(_ delivery: AMQPDelivery) { settle(delivery, .ack) }

    public func reject(_ delivery: AMQPDelivery, requeue: Bool) { settle(delivery, .reject(requeue: requeue)) }

    public func stopConsuming() { state.withLock { $0.consuming = false } }

    /// Stops delivering (the worker's run then returns).
    public func close() async {
        let running = state.withLock { state in
            state.closed = true
            state.receive = nil
            defer { state.running = nil }
            return state.running
        }
        running?.resume()
    }

    private func settle(_ delivery: AMQPDelivery, _ settlement: Settlement) {
        state.withLock { state in
            state.settled[delivery.deliveryTag] = settlement
            let count = state.settled.count
            state.waiters.removeAll { waiter in
                guard count >= waiter.count else { return false }
                waiter.continuation.resume()
                return true
            }
        }
    }
}
