import AMQP
import Foundation
import Postgres

/// A message the outbox relay (or a producer's ``JobPublisher``) must publish.
struct OutboxEntry: Sendable, Hashable {
    var id: UUID
    var kind: String
    var queue: String
    var priority: Int

    /// The job's message: its id as the body, persistent, mandatory (a queue that is gone returns
    /// it instead of dropping it), routed to its queue in `namespace`.
    func message(namespace: String) -> AMQPOutgoingMessage {
        let text = id.uuidString.lowercased()
        return AMQPOutgoingMessage(
            exchange: JobTopology.exchange, routingKey: JobTopology.routingKey(queue, namespace: namespace),
            body: Array(text.utf8),
            properties: AMQPMessageProperties(persistent: true, priority: UInt8(clamping: priority), messageID: text, type: kind),
            mandatory: true)
    }
}
