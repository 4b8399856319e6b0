import Hummingbird
import Logging
import NIOCore
import Postgres

/// The `reparto dashboard` web server, buildable without the CLI (tests start it on port 0).
public enum DashboardServer {
    /// An application serving the dashboard page, its JSON API and the health endpoints, reading
    /// the `ops.*` views through `postgres` (ideally connected as the `reparto_dashboard` role).
    ///
    /// - Parameters:
    ///   - port: the port to bind; 0 picks a free one, reported to `onListening`.
    ///   - onListening: called with the bound port once the server accepts connections.
    public static func buildApplication(
        host: String, port: Int, postgres: PostgresClient, logger: Logger,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router()
        DashboardRoutes.add(to: router, postgres: postgres, logger: logger)
        return Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port)),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? port) },
            logger: logger)
    }
}
