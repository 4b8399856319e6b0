import Foundation

/// Where and how to connect to RabbitMQ.
///
/// Built from an `amqp://user:password@host:port/vhost` URL; the password is kept out of
/// ``description``.
public struct AMQPConfiguration: Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String
    public var virtualHost: String
    /// Heartbeat interval negotiated with the broker, in seconds (0 disables heartbeats).
    public var heartbeat: Int
    /// Seconds to wait for the TCP connection and the login handshake.
    public var connectTimeout: Double

    public init(host: String = "127.0.0.1", port: Int = 5672, user: String = "guest", password: String = "guest",
                virtualHost: String = "/", heartbeat: Int = 30, connectTimeout: Double = 5) {
        (self.host, self.port, self.user, self.password, self.virtualHost, self.heartbeat, self.connectTimeout)
            = (host, port, user, password, virtualHost, heartbeat, connectTimeout)
    }

    /// Parses `amqp://user:password@host:port/vhost` (the vhost percent-encoded, `%2f` for `/`).
    public init(url: String) throws(AMQPError) {
        guard let components = URLComponents(string: url), components.scheme == "amqp",
              let host = components.host, !host.isEmpty else {
            throw AMQPError(.configuration, "URL is not of the form amqp://user:password@host:port/vhost")
        }
        self.init()
        self.host = host
        self.port = components.port ?? 5672
        if let user = components.percentEncodedUser { self.user = user.removingPercentEncoding ?? user }
        if let password = components.percentEncodedPassword { self.password = password.removingPercentEncoding ?? password }
        let path = components.percentEncodedPath
        if path.count > 1 {
            let encoded = String(path.dropFirst())
            self.virtualHost = encoded.removingPercentEncoding ?? encoded
        }
        for item in components.queryItems ?? [] {
            switch item.name {
            case "heartbeat": if let value = item.value.flatMap(Int.init) { heartbeat = value }
            case "connection_timeout": if let value = item.value.flatMap(Double.init) { connectTimeout = value / 1000 }
            default: break
            }
        }
    }

    public var description: String {
        "amqp://\(user)@\(host):\(port)/\(virtualHost == "/" ? "%2f" : virtualHost)"
    }
}
