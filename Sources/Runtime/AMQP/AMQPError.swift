/// An AMQP failure with the broker's reply code where there is one.
///
/// `description` names what failed and the reply code and text the broker sent; it never
/// contains credentials.
public struct AMQPError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What kind of failure this is.
    public enum Kind: Sendable, Equatable {
        /// The URL or settings are invalid.
        case configuration
        /// The TCP connection could not be opened or was lost.
        case connection
        /// The broker refused the credentials or the virtual host.
        case authentication
        /// The broker closed the channel (reply code set).
        case channelClosed
        /// The broker closed the connection (reply code set).
        case connectionClosed
        /// A publish was negatively confirmed by the broker.
        case nacked
        /// Waiting for the broker timed out.
        case timeout
        /// The wrapper was used after `close()`.
        case closed
    }

    public var kind: Kind
    /// AMQP reply code (403 ACCESS_REFUSED, 404 NOT_FOUND, 406 PRECONDITION_FAILED, 320 CONNECTION_FORCED, ...).
    public var replyCode: Int?
    /// What happened, free of secrets.
    public var message: String

    public init(_ kind: Kind, replyCode: Int? = nil, _ message: String) {
        self.kind = kind
        self.replyCode = replyCode
        self.message = message
    }

    /// True when reconnecting may help (lost connection, broker shutdown, timeouts).
    public var isConnectionLost: Bool {
        switch kind {
        case .connection, .connectionClosed, .timeout, .closed: return true
        case .channelClosed: return replyCode == 320
        default: return false
        }
    }

    public var description: String {
        if let replyCode { return "AMQP \(message) (reply code \(replyCode))" }
        return "AMQP \(message)"
    }
}
