import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Logging
@testable import Postgres
import RepartoTestSupport
import Testing

/// Reconnect tests kill the listener's own backend with pg_terminate_backend (equivalent for the
/// client to a server restart, without disturbing other suites sharing the server).
@Suite(.serialized, .timeLimit(.minutes(2))) struct PostgresListenerTests {
    @Test func deliversNotificationsAndReconnectsAfterItsBackendIsKilled() async throws {
        let applicationName = uniqueName("listener")
        let channelA = uniqueName("jobs")
        let channelB = "Mixed Case \"" + uniqueName("ch")
        let listener = PostgresListener(
            configuration: try TestDatabase.configuration(applicationName: applicationName),
            channels: [channelA, channelB],
            logger: Logger(label: "test.listener")
        )
        let inbox = NotificationInbox()
        let collector = inbox.collect(listener.notifications)
        listener.start()
        listener.start()  // idempotent

        let ready = await inbox.next(within: 10) { $0.channel.isEmpty }
        #expect(ready == PostgresNotification(channel: "", payload: "", pid: 0))

        let client = PostgresClient(configuration: try TestDatabase.configuration())
        try await client.withConnection { try $0.notify(channelA, payload: "first") }
        let first = await inbox.next(within: 10) { $0.channel == channelA }
        #expect(first?.payload == "first")
        try await client.withConnection { try $0.notify(channelB, payload: "to B") }
        #expect(await inbox.next(within: 10) { $0.channel == channelB }?.payload == "to B")

        // Kill the listener's backend; it must reconnect, announce it, and receive again.
        let killed = try await client.query(
            "SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1", [applicationName]
        )
        #expect(killed.count == 1)
        #expect(killed.first?.bool("ok") == true)
        let reconnected = await inbox.next(within: 15) { $0.channel.isEmpty }
        #expect(reconnected != nil)
        try await client.withConnection { try $0.notify(channelA, payload: "after reconnect") }
        #expect(await inbox.next(within: 10) { $0.channel == channelA }?.payload == "after reconnect")
        let backends = try await client.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1", [applicationName])
        #expect(backends[0].int("n") == 1)

        await listener.stop()
        #expect(await inbox.waitUntilFinished(within: 10))
        await collector.value
        await client.shutdown()
    }

    @Test func stopWithoutStartFinishesTheStream() async {
        let listener = PostgresListener(
            configuration: PostgresConfiguration(host: "127.0.0.1", port: 1, user: "nobody", database: "none"),
            channels: ["x"],
            logger: Logger(label: "test.listener")
        )
        await listener.stop()
        var iterator = listener.notifications.makeAsyncIterator()
        #expect(await iterator.next() == nil)
    }

    /// The "server" accepts each connection and closes it at once, so every connection attempt
    /// fails and is counted: a listener that gave up after the first failure would stop at one.
    @Test func keepsRetryingWhileTheServerIsUnreachableAndStopsPromptly() async throws {
        let server = try HangUpServer()
        defer { server.stop() }
        let listener = PostgresListener(
            configuration: PostgresConfiguration(host: "127.0.0.1", port: server.port, user: "nobody", database: "none", connectTimeout: 2),
            channels: ["x"],
            logger: Logger(label: "test.listener")
        )
        let inbox = NotificationInbox()
        let collector = inbox.collect(listener.notifications)
        listener.start()
        let deadline = ContinuousClock.now + .seconds(30)
        while server.accepted < 3, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(server.accepted >= 3, "connection attempts: \(server.accepted)")
        #expect(await inbox.next(within: 0.1) { _ in true } == nil, "no connection was ever made")
        await listener.stop()
        #expect(await inbox.waitUntilFinished(within: 1))
        await collector.value
    }
}

/// A TCP server on 127.0.0.1 that accepts every connection and closes it at once, counting them.
///
/// `@unchecked Sendable`: `count` is guarded by `lock`; the descriptor is immutable after `init`.
final class HangUpServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var count = 0

    var accepted: Int { lock.withLock { count } }

    init() throws {
        let (fd, port) = try LoopbackListener.open(backlog: 16)
        self.port = port
        listener = fd
        Thread { [self] in
            while true {
                let conn = accept(fd, nil, nil)
                if conn < 0 { if errno == EINTR { continue } else { return } }
                lock.withLock { count += 1 }
                close(conn)
            }
        }.start()
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}
