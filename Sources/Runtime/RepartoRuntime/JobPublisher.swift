import AMQP
import Foundation
import Logging
import Metrics
import Synchronization
import Threading

/// Publishes a producer's jobs to RabbitMQ right after their rows commit, so that they do not
/// wait for an outbox relay to wake, take them and publish them.
///
/// A ``JobClient`` given a publisher inserts jobs that are due at once already marked published,
/// commits, and hands them here; ``JobClient/enqueue(_:)`` returns once the broker has confirmed
/// them. Any job the broker does not take (unreachable, a nack, a returned message, a refused
/// declare, no confirm within 30 s) is flagged for the relay again before `enqueue` returns, so
/// the relay publishes it as it publishes every other job. A producer that dies between its
/// commit and the broker's confirm leaves jobs marked published without a message: the leading
/// relay's comparison of waiting jobs with the broker's queues publishes them again after its
/// grace (10–15 s). Duplicates are dropped at claim, as the relay's are.
///
/// A submission of more than ``maxJobsPerEnqueue`` jobs is left to the relay: its jobs wait for
/// workers anyway, not for a relay's wake-up, and the relay publishes a backlog in batches while
/// `enqueue` returns at its commit. Measured flat out (50,000 jobs enqueued 1,000 at a time,
/// 2026-11-27), the relay's way finished 7–20 % sooner in three interleaved pairs.
///
/// One dedicated thread owns the AMQP connection (opened at the first publish, kept, reopened
/// after a failure). After a failed connect, publishes go to the relay for a while (1 s, growing
/// to 30 s) instead of each waiting for a connect that is likely to fail too.
///
/// Call ``stop()`` before the process exits: it waits (at most 5 s) for the confirms of what is
/// in flight.
public final class JobPublisher: Sendable {
    struct Request: Sendable {
        var entries: [OutboxEntry]
        /// Resumed with the jobs the broker did not take.
        var done: CheckedContinuation<[UUID], Never>
    }

    private struct Inbox {
        var requests: [Request] = []
        var started = false
        var stopped = false
    }

    private let amqp: AMQPConfiguration
    private let namespace: String
    private let logger: Logger
    private let inbox = Mutex(Inbox())
    private let wake: WakePipe?
    private let thread = OwnedThread(name: "reparto-publish")

    /// The largest submission published here; larger ones are left to the relay.
    public let maxJobsPerEnqueue: Int

    /// Seconds the oldest publish may wait for its confirm before the connection counts as failed.
    static let confirmTimeout = 30.0
    /// Seconds ``stop()`` waits for the confirms of what is in flight.
    static let stopTimeout = 5.0

    /// - Parameter namespace: the namespace of the client's database sessions (``ClusterSettings``),
    ///   which prefixes the routing keys.
    /// - Parameter maxJobsPerEnqueue: the largest submission published here (at least 1).
    public init(amqp: AMQPConfiguration, namespace: String = "", maxJobsPerEnqueue: Int = 100, logger: Logger) {
        self.amqp = amqp
        self.maxJobsPerEnqueue = max(1, maxJobsPerEnqueue)
        self.namespace = namespace
        self.logger = logger
        do {
            wake = try WakePipe()
        } catch {
            // Out of descriptors: every job goes through the relay.
            logger.warning("the job publisher cannot start; the outbox relay publishes every job", metadata: ["error": "\(error)"])
            wake = nil
        }
    }

    /// Publishes `entries` and waits for the broker's confirms; returns the ids of the jobs the
    /// broker did not take (to be flagged for the relay).
    func publish(_ entries: [OutboxEntry]) async -> [UUID] {
        guard !entries.isEmpty, let wake else { return entries.map(\.id) }
        return await withCheckedContinuation { (done: CheckedContinuation<[UUID], Never>) in
            let (accepted, first) = inbox.withLock { inbox -> (Bool, Bool) in
                guard !inbox.stopped else { return (false, false) }
                inbox.requests.append(Request(entries: entries, done: done))
                defer { inbox.started = true }
                return (true, !inbox.started)
            }
            guard accepted else { return done.resume(returning: entries.map(\.id)) }
            if first { thread.start { [self] owner in loop(owner, wake: wake) } }
            wake.wake()
        }
    }

    /// Refuses new publishes (they go to the relay), waits for the confirms of those in flight
    /// (at most 5 s; the rest go to the relay) and closes the connection.
    public func stop() async {
        let started = inbox.withLock { inbox -> Bool in
            inbox.stopped = true
            return inbox.started
        }
        guard started else { return }
        wake?.wake()
        await thread.stop()
    }

    /// Jobs the broker did not take could not be flagged for the relay either (the database is
    /// unreachable too): the relay's comparison with the broker's queues finds them.
    func couldNotFlag(_ count: Int, error: any Error) {
        Counter(label: "reparto_publisher_unflagged_total").increment(by: count)
        logger.warning("jobs the broker did not take could not be flagged for the relay; its check of the queues will publish them",
                       metadata: ["jobs": "\(count)", "error": "\(error)"])
    }

    // MARK: the owning thread

    private struct InFlight {
        var request: Request
        var lastTag: UInt64
        var publishedAt: ContinuousClock.Instant
        var returned: [UUID] = []
    }

    /// The thread's state: the connection, the queues declared on it, the publishes in flight.
    private struct Link {
        var connection: AMQPConnection?
        var declared = Set<String>()
        var inFlight: [InFlight] = []
        var retryAt: ContinuousClock.Instant?
        var backoff = Backoff(initial: 1, maximum: 30)
    }

    @available(*, noasync)
    private func loop(_ owner: OwnedThread, wake: WakePipe) {
        var link = Link()
        var stopDeadline: ContinuousClock.Instant?
        while true {
            wake.drain()
            // `stopped` is set before the thread is asked to stop: once it is seen, nothing more arrives.
            let (requests, stopping) = inbox.withLock { inbox in
                defer { inbox.requests.removeAll() }
                return (inbox.requests, owner.isStopping)
            }
            for request in requests { send(request, link: &link) }
            settle(&link)
            if stopping {
                let deadline = stopDeadline ?? .now + .seconds(Self.stopTimeout)
                stopDeadline = deadline
                if link.inFlight.isEmpty || ContinuousClock.now >= deadline { break }
            }
            waitForWork(link: link, wake: wake, until: stopDeadline)
        }
        fail(&link, abandon: false)
        link.connection?.close()
    }

    /// Publishes one request's jobs, or hands them back (no connection, or it failed now).
    @available(*, noasync)
    private func send(_ request: Request, link: inout Link) {
        if link.connection == nil, let retryAt = link.retryAt, ContinuousClock.now < retryAt {
            return request.done.resume(returning: request.entries.map(\.id))
        }
        do {
            if link.connection == nil {
                let connection = try AMQPConnection.connect(amqp)
                try JobTopology.declareBase(on: connection)
                try connection.enableConfirms()
                link.connection = connection
                link.declared = []
                link.retryAt = nil
                link.backoff.reset()
            }
            guard let mq = link.connection else { return }
            for queue in Set(request.entries.map(\.queue)).subtracting(link.declared).sorted() {
                try JobTopology.declare(queue: queue, namespace: namespace, on: mq)
                link.declared.insert(queue)
            }
            let lastTag = try mq.publish(request.entries.map { $0.message(namespace: namespace) })
            link.inFlight.append(InFlight(request: request, lastTag: lastTag, publishedAt: .now))
        } catch {
            logger.warning("the job publisher cannot reach the broker; the outbox relay publishes its jobs",
                           metadata: ["error": "\(error)", "jobs": "\(request.entries.count)"])
            request.done.resume(returning: request.entries.map(\.id))
            fail(&link, abandon: true)
        }
    }

    /// Takes in the broker's confirms and returns; resumes the confirmed requests.
    @available(*, noasync)
    private func settle(_ link: inout Link) {
        guard let mq = link.connection else { return }
        do {
            try mq.processReceivedFrames()
            if !mq.takeNacked().isEmpty { throw AMQPError(.nacked, "the broker rejected published jobs") }
            let returned = mq.takeReturned().compactMap { UUID(uuidString: String(decoding: $0.body, as: UTF8.self)) }
            if !returned.isEmpty {
                // Its queue was deleted since it was declared here: declared again next time.
                Counter(label: "reparto_publisher_returned_total").increment(by: returned.count)
                let ids = Set(returned)
                for index in link.inFlight.indices {
                    let mine = link.inFlight[index].request.entries.filter { ids.contains($0.id) }
                    link.inFlight[index].returned += mine.map(\.id)
                    link.declared.subtract(mine.map(\.queue))
                }
            }
            while let first = link.inFlight.first, mq.isConfirmed(through: first.lastTag) {
                link.inFlight.removeFirst()
                Counter(label: "reparto_publisher_published_total").increment(by: first.request.entries.count - first.returned.count)
                first.request.done.resume(returning: first.returned)
            }
            if let oldest = link.inFlight.first?.publishedAt, ContinuousClock.now - oldest > .seconds(Self.confirmTimeout) {
                throw AMQPError(.timeout, "publishes not confirmed within \(Self.confirmTimeout) s")
            }
        } catch {
            logger.warning("the job publisher lost its broker connection; the outbox relay publishes its jobs",
                           metadata: ["error": "\(error)", "jobs": "\(link.inFlight.reduce(0) { $0 + $1.request.entries.count })"])
            fail(&link, abandon: true)
        }
    }

    /// Hands every job in flight back, unconfirmed; with `abandon`, drops the connection and puts
    /// off the next connect.
    @available(*, noasync)
    private func fail(_ link: inout Link, abandon: Bool) {
        for item in link.inFlight { item.request.done.resume(returning: item.request.entries.map(\.id)) }
        link.inFlight.removeAll()
        guard abandon else { return }
        link.connection?.abandon()
        link.connection = nil
        link.retryAt = .now + .seconds(link.backoff.next())
    }

    /// Waits for a wake-up, a frame from the broker (a confirm), or a second.
    @available(*, noasync)
    private func waitForWork(link: Link, wake: WakePipe, until deadline: ContinuousClock.Instant?) {
        if let mq = link.connection, mq.hasBufferedFrames { return }
        var wait = Duration.seconds(1)
        if let deadline { wait = min(wait, ContinuousClock.now.duration(to: deadline)) }
        if let oldest = link.inFlight.first?.publishedAt {
            wait = min(wait, (oldest + .seconds(Self.confirmTimeout)) - .now)
        }
        guard wait > .zero else { return }
        var descriptors = [pollfd(fd: wake.readDescriptor, events: Int16(POLLIN), revents: 0)]
        if let mq = link.connection { descriptors.append(pollfd(fd: mq.socketDescriptor, events: Int16(POLLIN), revents: 0)) }
        _ = poll(&descriptors, nfds_t(descriptors.count), wait.pollTimeoutMilliseconds)
    }
}
