import Dispatch
import Synchronization
import Logging

/// A pool of ``PostgresConnection``s for async code.
///
/// Each pooled connection lives on its own serial `DispatchQueue`, so blocking libpq calls never
/// run on Swift's cooperative thread pool. Connections are opened lazily, at most
/// `maxConnections` at once; callers beyond that wait (asynchronously, first come first served).
/// A connection that broke (``PostgresConnection/isOK`` false, or the body threw an error whose
/// ``PostgresError/isConnectionLost`` is true, or the server closed it while it sat idle) is
/// closed and replaced by a fresh one on its next use. A failed operation is never retried.
public final class PostgresClient: Sendable {
    /// The configuration every connection is opened with.
    public let configuration: PostgresConfiguration
    /// The most connections open at once.
    public let maxConnections: Int
    let logger: Logger
    private let state: Mutex<PoolState>

    /// Creates a pool. No connection is opened until the first call.
    public init(
        configuration: PostgresConfiguration,
        maxConnections: Int = 4,
        logger: Logger = Logger(label: "reparto.postgres")
    ) {
        self.configuration = configuration
        self.maxConnections = max(1, maxConnections)
        self.logger = logger
        self.state = Mutex(PoolState())
    }

    /// Runs `body` with a pooled connection, on that connection's own thread.
    ///
    /// Waits (async, FIFO, no polling) while all connections are busy. Cancelling the calling task
    /// while it waits throws `CancellationError`; once `body` runs it finishes.
    /// - Throws: the connect error, `body`'s error, or ``PostgresError`` of kind
    ///   ``PostgresError/Kind/closed`` after ``shutdown()``.
    public func withConnection<T: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        let slot = try await acquire()
        defer { release(slot) }
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            slot.queue.async {
                continuation.resume(with: Result { try slot.run(body) })
            }
        }
    }

    /// Runs `body` inside a transaction on a pooled connection (see
    /// ``PostgresConnection/transaction(settings:_:)``): committed when it returns, rolled back when it throws.
    /// - Parameter settings: `SET LOCAL`s sent with the `BEGIN` (``PostgresConnection/transaction(settings:_:)``).
    public func withTransaction<T: Sendable>(
        settings: KeyValuePairs<String, String> = [:],
        _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        try await withConnection { connection in
            try connection.transaction(settings: settings, body)
        }
    }

    /// Runs one parameterized statement on a pooled connection.
    @discardableResult
    public func query(_ sql: String, _ parameters: [any PostgresEncodable & Sendable] = []) async throws -> PostgresResult {
        try await withConnection { connection in
            try connection.query(sql, parameters.map { $0 as any PostgresEncodable })
        }
    }

    /// How many calls are queued waiting for a connection (all connections in use). Lets tests
    /// wait until a call really waits before acting on it; also a pool-pressure gauge.
    public var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// Closes idle connections and fails current waiters and all later calls with
    /// ``PostgresError/Kind/closed``. Connections in use are closed when their body returns.
    public func shutdown() async {
        let (waiters, idle) = state.withLock { state -> ([Waiter], [PooledConnection]) in
            state.isShutDown = true
            let waiters = state.waiters
            let idle = state.idle
            state.waiters.removeAll()
            state.idle.removeAll()
            state.open -= idle.count
            return (waiters, idle)
        }
        for waiter in waiters {
            waiter.continuation.resume(throwing: PostgresError(.closed, message: "the PostgreSQL client was shut down"))
        }
        for slot in idle {
            await slot.close()
        }
        logger.debug("PostgreSQL client shut down", metadata: ["closed": "\(idle.count)"])
    }

    // MARK: pool bookkeeping

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<PooledConnection, any Error>
    }

    private struct PoolState {
        var idle: [PooledConnection] = []
        var open = 0
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
        var isShutDown = false
    }

    private enum Acquisition {
        case ready(PooledConnection)
        case wait
        case closed
    }

    private func acquire() async throws -> PooledConnection {
        try Task.checkCancellation()
        let immediate = state.withLock { state -> Acquisition in
            if state.isShutDown { return .closed }
            if let slot = state.idle.popLast() { return .ready(slot) }
            if state.open < maxConnections {
                state.open += 1
                state.nextID += 1
                return .ready(PooledConnection(number: state.nextID, configuration: configuration, logger: logger))
            }
            return .wait
        }
        switch immediate {
        case .ready(let slot): return slot
        case .closed: throw PostgresError(.closed, message: "the PostgreSQL client was shut down")
        case .wait: break
        }

        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<PooledConnection, any Error>) in
                // Re-check under the lock: a slot may have been released, or the task cancelled,
                // between the first check and now.
                let outcome = state.withLock { state -> Acquisition in
                    if state.isShutDown { return .closed }
                    if let slot = state.idle.popLast() { return .ready(slot) }
                    if Task.isCancelled { return .closed }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return .wait
                }
                switch outcome {
                case .ready(let slot): continuation.resume(returning: slot)
                case .wait: break
                case .closed:
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        continuation.resume(throwing: PostgresError(.closed, message: "the PostgreSQL client was shut down"))
                    }
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    private func release(_ slot: PooledConnection) {
        enum Next {
            case handOver(Waiter)
            case keep
            case close
        }
        let next = state.withLock { state -> Next in
            if !state.waiters.isEmpty { return .handOver(state.waiters.removeFirst()) }
            if state.isShutDown {
                state.open -= 1
                return .close
            }
            state.idle.append(slot)
            return .keep
        }
        switch next {
        case .handOver(let waiter): waiter.continuation.resume(returning: slot)
        case .keep: break
        case .close: slot.queue.async { slot.closeOnQueue() }
        }
    }
}

/// One pool slot: a serial queue and the connection used on it (opened lazily).
final class PooledConnection: Sendable {
    let queue: DispatchQueue
    private let connection: BlockingPostgresConnection

    init(number: UInt64, configuration: PostgresConfiguration, logger: Logger) {
        queue = DispatchQueue(label: "reparto.postgres.connection.\(number)")
        connection = BlockingPostgresConnection(configuration: configuration, logger: logger)
    }

    /// Runs `body` with a healthy connection. Call only on `queue`.
    @available(*, noasync)
    func run<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        dispatchPrecondition(condition: .onQueue(queue))
        return try connection.run(body)
    }

    /// Closes the connection on its queue.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                self.closeOnQueue()
                continuation.resume()
            }
        }
    }

    /// Closes the connection. Call only on `queue`.
    @available(*, noasync)
    func closeOnQueue() {
        dispatchPrecondition(condition: .onQueue(queue))
        connection.close()
    }
}
