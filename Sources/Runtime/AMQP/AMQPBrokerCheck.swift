import Threading

extension AMQPConnection {
    /// Connects once and disconnects, on a thread outside the cooperative pool: the start-up check
    /// that turns a wrong URL or password into one clear error line instead of a reconnect loop.
    public static func check(_ configuration: AMQPConfiguration) async throws {
        try await BlockingWork.run { try AMQPConnection.connect(configuration).close() }
    }
}
