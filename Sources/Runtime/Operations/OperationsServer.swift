import Hummingbird
import RepartoRuntime
import Logging
import NIOCore

/// The metrics and health server of `reparto worker` and `reparto coordinator` (`--metrics-port`).
public enum OperationsServer {
    /// An application serving `/healthz`, `/readyz` and `/metrics`; run it as a `Service`.
    ///
    /// - Parameters:
    ///   - port: the port to bind; 0 picks a free one, reported to `onListening`.
    ///   - readiness: the readiness signal, usually a ``ConnectionHealth``'s `status`.
    ///   - onListening: called with the bound port once the server accepts connections.
    public static func buildApplication(
        host: String, port: Int, readiness: @escaping @Sendable () async -> ReadinessStatus, logger: Logger,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router()
        OperationsRoutes.add(to: router, readiness: readiness)
        return Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port)),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? port) },
            logger: logger)
    }
}
