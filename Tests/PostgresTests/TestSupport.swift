import Foundation
import Postgres
import RepartoTestSupport
import Testing

/// Connection settings for the real test server: `REPARTO_DATABASE_URL`, or the value written by
/// `scripts/services` into `.reparto/env` at the package root. No server → the tests fail.
enum TestDatabase {
    /// "…-not-configured" when there is none, so connecting fails (the tests fail, never skip).
    static let url: String = (try? TestEnvironment.databaseURL())
        ?? "postgres://reparto@127.0.0.1:24432/reparto-url-not-configured"

    static func configuration(applicationName: String = "reparto-postgres-tests") throws -> PostgresConfiguration {
        var configuration = try PostgresConfiguration(url: url)
        configuration.applicationName = applicationName
        configuration.connectTimeout = 5
        return configuration
    }
}

/// Runs blocking libpq work off the cooperative pool, inside the current task (see
/// ``BlockingTaskExecutor``).
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withTaskExecutorPreference(BlockingTaskExecutor()) {
        try await runNonisolated(body)
    }
}

/// A nonisolated async hop, so `body` runs on the preferred task executor.
private func runNonisolated<T: Sendable>(_ body: @Sendable () throws -> T) async throws -> T {
    try body()
}

/// Opens a connection to the test server on the current (non-async) thread.
@available(*, noasync)
func connect(applicationName: String = "reparto-postgres-tests") throws -> PostgresConnection {
    try PostgresConnection.connect(TestDatabase.configuration(applicationName: applicationName))
}

/// A name unique to this test run, for tables, schemas, channels and application names.
func uniqueName(_ prefix: String) -> String {
    "\(prefix)_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12))"
}

/// A tiny lock for test bookkeeping across tasks.
final class TestCounter: @unchecked Sendable {
    // @unchecked: all state is guarded by `lock`.
    private let lock = NSLock()
    private var current = 0
    private var maximum = 0

    func enter() {
        lock.lock()
        current += 1
        maximum = max(maximum, current)
        lock.unlock()
    }

    func leave() {
        lock.lock()
        current -= 1
        lock.unlock()
    }

    var highWaterMark: Int {
        lock.lock()
        defer { lock.unlock() }
        return maximum
    }
}

/// Collects a listener's notifications so a test can wait for a specific one with a deadline.
actor NotificationInbox {
    private var pending: [PostgresNotification] = []
    private var waiters: [Int: (predicate: @Sendable (PostgresNotification) -> Bool, continuation: CheckedContinuation<PostgresNotification?, Never>)] = [:]
    private var nextWaiter = 0
    private(set) var finished = false

    /// Starts draining `stream` into the inbox.
    nonisolated func collect(_ stream: AsyncStream<PostgresNotification>) -> Task<Void, Never> {
        Task {
            for await notification in stream {
                await self.deliver(notification)
            }
            await self.finish()
        }
    }

    private func deliver(_ notification: PostgresNotification) {
        for (id, waiter) in waiters.sorted(by: { $0.key < $1.key }) where waiter.predicate(notification) {
            waiters[id] = nil
            waiter.continuation.resume(returning: notification)
            return
        }
        pending.append(notification)
    }

    private func finish() {
        finished = true
        for waiter in waiters.values { waiter.continuation.resume(returning: nil) }
        waiters.removeAll()
    }

    private func expire(_ id: Int) {
        waiters.removeValue(forKey: id)?.continuation.resume(returning: nil)
    }

    /// The first not-yet-taken notification matching `predicate` (earlier non-matching ones are
    /// dropped), or nil after `timeout` seconds or when the stream finished.
    func next(within timeout: Double, where predicate: @escaping @Sendable (PostgresNotification) -> Bool) async -> PostgresNotification? {
        if let index = pending.firstIndex(where: predicate) {
            let found = pending[index]
            pending.removeFirst(index + 1)
            return found
        }
        pending.removeAll()
        if finished { return nil }
        nextWaiter += 1
        let id = nextWaiter
        return await withCheckedContinuation { continuation in
            waiters[id] = (predicate, continuation)
            Task {
                try? await Task.sleep(for: .seconds(timeout))
                self.expire(id)
            }
        }
    }

    /// Waits until the stream has finished; false if it has not within `timeout` seconds.
    func waitUntilFinished(within timeout: Double) async -> Bool {
        let deadline = ContinuousClock.now.advanced(by: .seconds(timeout))
        while !finished, ContinuousClock.now < deadline {
            _ = await next(within: 0.05) { _ in false }
        }
        return finished
    }
}

/// A task executor on its own serial dispatch queue (a GCD worker thread, never the cooperative
/// pool). Running blocking work under it keeps the test's task — and so Swift Testing's task-local
/// test context — which a plain `Thread` would lose (issues would be attributed to «unknown»).
final class BlockingTaskExecutor: TaskExecutor {
    private let queue: DispatchQueue = {
        let queue = DispatchQueue(label: "reparto.postgres-tests.blocking")
        queue.setSpecific(key: blockingQueueKey, value: true)
        return queue
    }()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

/// Marks the blocking test queues, so a test can check where it runs.
let blockingQueueKey = DispatchSpecificKey<Bool>()

/// True on a ``BlockingTaskExecutor`` queue.
func isOnBlockingQueue() -> Bool {
    DispatchQueue.getSpecific(key: blockingQueueKey) == true
}
