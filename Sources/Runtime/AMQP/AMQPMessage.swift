/// Properties of a message to publish.
public struct AMQPMessageProperties: Sendable, Equatable {
    /// Persistent messages survive a broker restart in durable queues.
    public var persistent: Bool
    /// 0...9 for priority queues.
    public var priority: UInt8
    public var contentType: String?
    public var messageID: String?
    /// The AMQP `type` property; Reparto puts the job kind here.
    public var type: String?
    /// Per-message TTL in milliseconds, as a decimal string (AMQP's format).
    public var expirationMilliseconds: Int?

    public init(persistent: Bool = true, priority: UInt8 = 0, contentType: String? = nil,
                messageID: String? = nil, type: String? = nil, expirationMilliseconds: Int? = nil) {
        (self.persistent, self.priority, self.contentType, self.messageID, self.type, self.expirationMilliseconds)
            = (persistent, priority, contentType, messageID, type, expirationMilliseconds)
    }
}

/// A message to publish: where it goes, its body and properties.
public struct AMQPOutgoingMessage: Sendable {
    public var exchange: String
    public var routingKey: String
    public var body: [UInt8]
    public var properties: AMQPMessageProperties
    /// Whether the broker returns the message (basic.return) when no queue is bound to take it,
    /// instead of dropping it silently; see ``AMQPConnection/takeReturned()``.
    public var mandatory: Bool

    public init(exchange: String, routingKey: String, body: [UInt8], properties: AMQPMessageProperties = .init(),
                mandatory: Bool = false) {
        self.exchange = exchange
        self.routingKey = routingKey
        self.body = body
        self.properties = properties
        self.mandatory = mandatory
    }
}

/// A mandatory message the broker could not route (basic.return): nothing received it.
public struct AMQPReturnedMessage: Sendable, Equatable {
    /// The broker's reason, e.g. 312 `NO_ROUTE`.
    public var replyCode: Int
    public var replyText: String
    public var exchange: String
    public var routingKey: String
    public var body: [UInt8]
}

/// A message received from a consumer.
public struct AMQPDelivery: Sendable {
    /// The channel-scoped tag to ack or reject with.
    public var deliveryTag: UInt64
    /// True when the broker delivered this message before (to this or another consumer).
    public var redelivered: Bool
    public var exchange: String
    public var routingKey: String
    public var consumerTag: String
    public var body: [UInt8]
    public var type: String?
    public var messageID: String?
    public var priority: UInt8?
    /// Which connection of a reconnecting consumer received this; acks for older generations are dropped.
    public var generation: Int

    public init(deliveryTag: UInt64, redelivered: Bool, exchange: String, routingKey: String, consumerTag: String,
                body: [UInt8], type: String?, messageID: String?, priority: UInt8?, generation: Int) {
        (self.deliveryTag, self.redelivered, self.exchange, self.routingKey, self.consumerTag, self.body, self.type,
         self.messageID, self.priority, self.generation) =
            (deliveryTag, redelivered, exchange, routingKey, consumerTag, body, type, messageID, priority, generation)
    }
}

/// A queue or exchange argument value.
public enum AMQPArgument: Sendable, Equatable {
    case long(Int64)
    case string(String)
}
