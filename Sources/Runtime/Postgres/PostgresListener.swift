import Foundation
import Synchronization
import Logging
import Threading

/// A dedicated `LISTEN` connection on its own thread, delivering notifications as an `AsyncStream`.
///
/// The thread owns one ``PostgresConnection``, waits on its socket in short slices (so ``stop()``
/// is noticed within about 50 ms; it returns once the thread has closed its connection, so a
/// process may exit right after it without a thread still inside libpq or OpenSSL) and reconnects with exponential backoff (0.1 s doubling to 5 s)
/// whenever the connection is lost, e.g. after a server restart or `pg_terminate_backend`. After
/// every successful (re)connection it re-LISTENs all channels and then yields a synthetic
/// notification with channel `""` (payload `""`, pid 0): anything sent while no connection was
/// listening is lost, so consumers should re-scan the state they watch when they see it. The first
/// connection also yields one, which doubles as "the listener is ready".
public final class PostgresListener: Sendable {
    /// The configuration the listener connects with.
    public let configuration: PostgresConfiguration
    /// The channels it listens on.
    public let channels: [String]
    private let logger: Logger
    private let stream: AsyncStream<PostgresNotification>
    private let continuation: AsyncStream<PostgresNotification>.Continuation
    private let thread: OwnedThread
    private let started = Mutex(false)

    /// Creates a stopped listener; call ``start()``.
    public init(configuration: PostgresConfiguration, channels: [String], logger: Logger) {
        self.configuration = configuration
        self.channels = channels
        self.logger = logger
        (stream, continuation) = AsyncStream.makeStream(of: PostgresNotification.self, bufferingPolicy: .unbounded)
        thread = OwnedThread(name: "reparto.postgres.listener")
    }

    deinit {
        thread.requestStop()
        continuation.finish()
    }

    /// The notifications, in arrival order, including the synthetic `""` ones after each
    /// (re)connection. Finishes after ``stop()``. An `AsyncStream` has a single consumer: iterate it
    /// from one task.
    public var notifications: AsyncStream<PostgresNotification> { stream }

    /// Starts the listener thread. Calling it again, or after ``stop()``, does nothing.
    public func start() {
        let shouldStart = started.withLock { started -> Bool in
            defer { started = true }
            return !started && !thread.isStopping
        }
        guard shouldStart else { return }
        let configuration = configuration
        let channels = channels
        let logger = logger
        let continuation = continuation
        // The thread captures only what it needs (not `self`), so dropping the listener stops it.
        thread.start { thread in
            Self.run(configuration: configuration, channels: channels, logger: logger, continuation: continuation, thread: thread)
        }
    }

    /// Stops listening and waits until the thread has closed its connection (about 50 ms, or
    /// the end of a connection attempt in progress); then the ``notifications`` stream finishes.
    public func stop() async {
        let wasStarted = started.withLock { started -> Bool in
            defer { started = true }
            return started
        }
        guard wasStarted else {
            thread.requestStop()
            continuation.finish()
            return
        }
        await thread.stop()
    }

    @available(*, noasync)
    private static func run(
        configuration: PostgresConfiguration,
        channels: [String],
        logger: Logger,
        continuation: AsyncStream<PostgresNotification>.Continuation,
        thread: OwnedThread
    ) {
        let initialBackoff = 0.1
        var backoff = initialBackoff
        var connection: PostgresConnection?
        var everConnected = false
        defer {
            connection?.close()
            continuation.finish()
        }
        while !thread.isStopping {
            guard let current = connection else {
                do {
                    let opened = try PostgresConnection.connect(configuration, isCancelled: { thread.isStopping })
                    for channel in channels { try opened.listen(channel) }
                    connection = opened
                    backoff = initialBackoff
                    logger.info(everConnected ? "PostgreSQL listener reconnected" : "PostgreSQL listener connected", metadata: [
                        "server": "\(configuration.endpoint)", "channels": "\(channels.joined(separator: ","))",
                    ])
                    everConnected = true
                    continuation.yield(PostgresNotification(channel: "", payload: "", pid: 0))
                } catch {
                    logger.warning("PostgreSQL listener cannot connect; retrying", metadata: [
                        "error": "\(error)", "retryIn": "\(backoff)s",
                    ])
                    thread.sleep(backoff)
                    backoff = min(backoff * 2, 5)
                }
                continue
            }
            do {
                for notification in try current.waitForNotifications(timeout: 0.05) {
                    continuation.yield(notification)
                }
            } catch {
                logger.warning("PostgreSQL listener lost its connection; reconnecting", metadata: ["error": "\(error)"])
                current.close()
                connection = nil
            }
        }
    }
}
