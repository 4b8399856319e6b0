import Foundation
import Logging
import Postgres
import Threading

/// The producer API: enqueue typed jobs, look up status and progress, cancel, retry, await.
///
/// Enqueueing writes PostgreSQL first (the job rows are the outbox). Without a publisher, relays
/// publish the jobs to RabbitMQ after the commit; with a ``JobPublisher``, the client publishes
/// its due jobs itself right after the commit, and whatever the broker does not take goes back
/// to the relays. Either way a job row and its message never disagree for long after a crash.
///
/// ```swift
/// let client = JobClient(postgres: PostgresClient(configuration: try .init(url: databaseURL)))
/// let production = try await client.createProduction(name: "nightly thumbnails")
/// let ids = try await client.enqueue((1...100).map { try JobRequest(Thumbnail(page: $0),
///     options: JobOptions(productionID: production)) })
/// let progress = try await client.awaitProduction(production, timeout: 600)
/// ```
public final class JobClient: Sendable {
    public let postgres: PostgresClient
    /// Publishes the due jobs of ``enqueue(_:)`` after their commit (nil: the relays do).
    public let publisher: JobPublisher?

    /// - Parameter publisher: publishes enqueued jobs that are due at once right after their
    ///   commit, instead of leaving them to a relay (a job's way to a worker is shorter by a
    ///   relay's wake-up, take and publish). Its namespace must be the pool's.
    public init(postgres: PostgresClient, publisher: JobPublisher? = nil) {
        self.postgres = postgres
        self.publisher = publisher
    }

    /// Enqueues one typed job; returns its id (the existing job's id for a repeated idempotency key).
    @discardableResult
    public func enqueue<P: JobParameters>(_ parameters: P, options: JobOptions = JobOptions()) async throws -> UUID {
        let request = try JobRequest(parameters, options: options)
        return try await enqueue([request])[0]
    }

    /// Enqueues a batch in one transaction (one multi-row statement).
    ///
    /// With a ``publisher`` and at most its ``JobPublisher/maxJobsPerEnqueue`` requests, returns
    /// once the broker has confirmed the due jobs, or they are flagged for the relays.
    @discardableResult
    public func enqueue(_ requests: [JobRequest]) async throws -> [UUID] {
        if requests.isEmpty { return [] }
        // One statement, its own transaction (see JobStore.insert).
        guard let publisher, requests.count <= publisher.maxJobsPerEnqueue else {
            return try await postgres.withConnection { try JobStore.insert(requests, on: $0) }
        }
        let inserted = try await postgres.withConnection { try JobStore.insert(requests, publishing: true, on: $0) }
        let refused = await publisher.publish(inserted.toPublish)
        if !refused.isEmpty {
            do {
                try await postgres.withConnection { try JobStore.restorePending(refused, on: $0) }
            } catch {
                // Committed, marked published, with no message: the relay's comparison with the
                // broker's queues publishes them after its grace.
                publisher.couldNotFlag(refused.count, error: error)
            }
        }
        return inserted.ids
    }

    /// Jobs per transaction for ``enqueue(count:chunkSize:_:)``.
    public static let enqueueChunkSize = 5000

    /// Enqueues `count` jobs made by `make` (given each job's index), in transactions of at most
    /// `chunkSize` jobs (one multi-row statement each), so that a million jobs hold neither one
    /// huge transaction nor all their requests in memory at once. Returns the ids in order.
    @discardableResult
    public func enqueue(count: Int, chunkSize: Int = JobClient.enqueueChunkSize,
                        _ make: (Int) throws -> JobRequest) async throws -> [UUID] {
        var ids: [UUID] = []
        ids.reserveCapacity(count)
        for range in JobClient.chunks(count: count, size: chunkSize) {
            ids += try await enqueue(try range.map(make))
        }
        return ids
    }

    /// `0..<count` cut into consecutive ranges of at most `size` (at least 1).
    static func chunks(count: Int, size: Int) -> [Range<Int>] {
        let size = max(1, size)
        return stride(from: 0, to: max(0, count), by: size).map { $0..<min($0 + size, count) }
    }

    /// Enqueues inside the caller's own transaction: the jobs exist if and only if it commits.
    @available(*, noasync)
    @discardableResult
    public static func enqueue(_ requests: [JobRequest], in connection: PostgresConnection) throws -> [UUID] {
        try JobStore.insert(requests, on: connection)
    }

    /// Creates a production (a batch of jobs tracked together, or a multi-stage run of a plan).
    public func createProduction(id: UUID = .timeOrdered(), name: String = "", plan: String = "batch", stage: String = "main",
                                 parameters: Data = Data("{}".utf8)) async throws -> UUID {
        try await postgres.withConnection {
            try JobStore.createProduction(id: id, name: name, plan: plan, stage: stage, parameters: parameters, on: $0)
        }
        return id
    }

    /// Creates the production that `reference` names, unless it exists: a UUID, or a name that
    /// ``ProductionName`` maps to a stable id (so the same name twice means one production).
    /// Returns its id.
    public func createProduction(named reference: String) async throws -> UUID {
        try await createProduction(id: ProductionName.resolve(reference), name: reference)
    }

    /// Creates a production inside the caller's transaction.
    @available(*, noasync)
    public static func createProduction(id: UUID = .timeOrdered(), name: String = "", plan: String = "batch", stage: String = "main",
                                        parameters: Data = Data("{}".utf8), in connection: PostgresConnection) throws -> UUID {
        try JobStore.createProduction(id: id, name: name, plan: plan, stage: stage, parameters: parameters, on: connection)
        return id
    }

    public func job(_ id: UUID) async throws -> JobRecord {
        guard let record = try await postgres.withConnection({ try JobStore.job(id, on: $0) }) else {
            throw RepartoError.notFound(what: "job", id: id.uuidString.lowercased())
        }
        return record
    }

    public func progress(_ production: UUID) async throws -> ProductionProgress {
        guard let progress = try await postgres.withConnection({ try JobStore.progress(production, on: $0) }) else {
            throw RepartoError.notFound(what: "production", id: production.uuidString.lowercased())
        }
        return progress
    }

    /// Cancels a production (or a single job): waiting jobs will not run, running ones are asked
    /// to stop, finished results are kept.
    public func cancel(_ id: UUID) async throws {
        let done = try await postgres.withTransaction { connection -> Bool? in
            if try JobStore.productionExists(id, on: connection) { return try JobStore.cancelProduction(id, on: connection) }
            if try JobStore.job(id, on: connection) != nil { return try JobStore.cancelJob(id, on: connection) }
            return nil
        }
        switch done {
        case nil: throw RepartoError.notFound(what: "job or production", id: id.uuidString.lowercased())
        case false?: throw RepartoError.invalidState("\(id.uuidString.lowercased()) has already finished")
        case true?: return
        }
    }

    /// Queues dead or cancelled jobs again (one job, or every such job of a production); returns how many.
    @discardableResult
    public func retry(_ id: UUID) async throws -> Int {
        let count = try await postgres.withTransaction { connection -> Int? in
            if try JobStore.productionExists(id, on: connection) {
                return try JobStore.retry(jobs: nil, production: id, on: connection)
            }
            if try JobStore.job(id, on: connection) != nil { return try JobStore.retry(jobs: [id], production: nil, on: connection) }
            return nil
        }
        guard let count else { throw RepartoError.notFound(what: "job or production", id: id.uuidString.lowercased()) }
        return count
    }

    /// Waits until the job is final (succeeded, dead or cancelled).
    public func awaitJob(_ id: UUID, timeout: Double) async throws -> JobRecord {
        let deadline = ContinuousClock.now + .seconds(timeout)
        var backoff = Backoff(initial: 0.005, maximum: 0.5)
        while true {
            let record = try await job(id)
            if record.state.isFinal { return record }
            if ContinuousClock.now >= deadline { throw RepartoError.timeout("job \(id.uuidString.lowercased()) not finished after \(timeout) s") }
            try await Task.sleep(for: .seconds(backoff.next()))
        }
    }

    /// Waits until the production has finished (or `until` holds), reacting to `NOTIFY reparto_progress`.
    public func awaitProduction(_ id: UUID, timeout: Double, logger: Logger = Logger(label: "reparto.client"),
                                until condition: @Sendable (ProductionProgress) -> Bool = { $0.isFinished },
                                onProgress: @Sendable (ProductionProgress) -> Void = { _ in }) async throws -> ProductionProgress {
        let listener = PostgresListener(configuration: postgres.configuration, channels: [JobStore.progressChannel], logger: logger)
        listener.start()
        let signal = WakeSignal()
        let pump = Task { for await _ in listener.notifications { signal.wake() } }
        // The listener's thread is gone before this returns: a caller may exit the process at once.
        let result: Result<ProductionProgress, any Error>
        do {
            result = .success(try await pollProduction(id, timeout: timeout, signal: signal, until: condition, onProgress: onProgress))
        } catch {
            result = .failure(error)
        }
        pump.cancel()
        await listener.stop()
        return try result.get()
    }

    private func pollProduction(_ id: UUID, timeout: Double, signal: WakeSignal, until condition: (ProductionProgress) -> Bool,
                                onProgress: (ProductionProgress) -> Void) async throws -> ProductionProgress {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            try Task.checkCancellation()
            let current = try await progress(id)
            onProgress(current)
            if condition(current) { return current }
            if ContinuousClock.now >= deadline {
                throw RepartoError.timeout(
                    "production \(id.uuidString.lowercased()) not finished after \(timeout) s: \(current.done) of \(current.total) jobs done")
            }
            // Wake on a notification, or after a second (a missed notification costs at most that);
            // at most ten looks a second however many jobs finish.
            let looked = ContinuousClock.now
            await signal.wait(timeout: min(1, max(0.01, (deadline - ContinuousClock.now) / .seconds(1))))
            let next = looked + .milliseconds(100)
            if ContinuousClock.now < next { try await Task.sleep(until: next) }
        }
    }
}
