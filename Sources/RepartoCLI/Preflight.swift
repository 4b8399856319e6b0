import AMQP
import Dispatch

/// Start-up checks that turn a wrong URL or password into one clear error line instead of a
/// reconnect loop.
enum Preflight {
    /// Connects once to RabbitMQ on a dispatch thread (never the cooperative pool) and disconnects.
    static func checkBroker(_ configuration: AMQPConfiguration) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async {
                do {
                    let connection = try AMQPConnection.connect(configuration)
                    connection.close()
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
