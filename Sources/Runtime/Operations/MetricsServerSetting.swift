import Foundation
import RepartoRuntime
import Logging
import ServiceLifecycle

/// A bad `REPARTO_METRICS_PORT`, in one line.
public struct MetricsPortError: Error, Sendable, CustomStringConvertible {
    public let description: String
}

/// The `/metrics`, `/healthz` and `/readyz` server of a worker or coordinator.
public enum MetricsServerSetting {
    /// The port `flag` gives, else `REPARTO_METRICS_PORT` (`value`, from any configuration layer);
    /// nil for no server.
    public static func port(flag: Int?, variable value: String?) throws(MetricsPortError) -> Int? {
        if let flag { return flag }
        guard let value else { return nil }
        guard let port = Int(value.trimmingCharacters(in: .whitespaces)), (0...65535).contains(port) else {
            throw MetricsPortError(description: "\(OperationsEndpoints.metricsPortVariable) must be a port number, not '\(value)'")
        }
        return port
    }

    /// The server as a service (none without a port), answering readiness from `health`.
    public static func services(host: String, port: Int?, health: ConnectionHealth,
                                logger: Logger) -> [ServiceGroupConfiguration.ServiceConfiguration] {
        guard let port else { return [] }
        let server = OperationsServer.buildApplication(
            host: host, port: port, readiness: { health.status }, logger: logger,
            onListening: { bound in logger.info("metrics server listening", metadata: ["host": "\(host)", "port": "\(bound)"]) })
        return [.init(service: server)]
    }
}
