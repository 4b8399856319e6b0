import CRabbitMQ
import Foundation

/// One rabbitmq-c connection with one channel (number 1).
///
/// rabbitmq-c connections must never be used from two threads: an `AMQPConnection` is owned by
/// exactly one thread (see ``AMQPConsumer``, and the outbox relay's thread in Jobs), so every method blocks and is
/// unavailable from async code.
public final class AMQPConnection {
    private var state: amqp_connection_state_t?
    private let channel: amqp_channel_t = 1
    /// Publish sequence numbers in confirm mode (the broker's delivery tags for confirms).
    private var nextPublishTag: UInt64 = 1
    private var confirmMode = false
    /// Published, not yet confirmed tags, ascending.
    private var unconfirmed: [UInt64] = []
    private var nacked: [UInt64] = []
    /// Mandatory messages the broker returned, oldest first, until ``takeReturned()``.
    private var returned: [AMQPReturnedMessage] = []
    public let configuration: AMQPConfiguration

    private init(configuration: AMQPConfiguration, state: amqp_connection_state_t) {
        self.configuration = configuration
        self.state = state
    }

    deinit {
        if let state {
            _ = amqp_connection_close(state, Int32(AMQP_REPLY_SUCCESS))
            _ = amqp_destroy_connection(state)
        }
    }

    /// Opens the TCP connection, logs in and opens channel 1.
    @available(*, noasync)
    public static func connect(_ configuration: AMQPConfiguration) throws(AMQPError) -> AMQPConnection {
        guard let state = amqp_new_connection() else { throw AMQPError(.connection, "cannot allocate a connection") }
        guard let socket = amqp_tcp_socket_new(state) else {
            amqp_destroy_connection(state)
            throw AMQPError(.connection, "cannot allocate a socket")
        }
        var timeout = Self.timeval(seconds: configuration.connectTimeout)
        let status = amqp_socket_open_noblock(socket, configuration.host, Int32(configuration.port), &timeout)
        if status != AMQP_STATUS_OK.rawValue {
            amqp_destroy_connection(state)
            throw AMQPError(.connection, "cannot connect to \(configuration.host):\(configuration.port): \(Self.statusText(status))")
        }
        _ = amqp_set_handshake_timeout(state, &timeout)
        _ = amqp_set_rpc_timeout(state, &timeout)
        let reply = reparto_amqp_login_plain(state, configuration.virtualHost, 0, 131_072, Int32(configuration.heartbeat),
                                             configuration.user, configuration.password)
        if reply.reply_type != AMQP_RESPONSE_NORMAL {
            var error = Self.error(from: reply, context: "login to \(configuration.host):\(configuration.port) as \(configuration.user)")
            if error.replyCode == 403 || error.replyCode == 530 || error.kind == .connection {
                // RabbitMQ answers bad credentials with ACCESS_REFUSED or by closing the socket.
                error.kind = .authentication
                error.message = "login to \(configuration.host):\(configuration.port) as \(configuration.user) refused: wrong user name, password or virtual host"
            }
            amqp_destroy_connection(state)
            throw error
        }
        let connection = AMQPConnection(configuration: configuration, state: state)
        amqp_channel_open(state, 1)
        try connection.check("channel.open")
        return connection
    }

    // MARK: topology

    /// Declares an exchange (idempotent when the settings match).
    @available(*, noasync)
    public func declareExchange(_ name: String, type: String = "direct", durable: Bool = true) throws(AMQPError) {
        let state = try live()
        Self.withCStrings([name, type]) { b in
            _ = amqp_exchange_declare(state, channel, b[0], b[1], 0, durable ? 1 : 0, 0, 0, amqp_empty_table)
        }
        try check("exchange.declare \(name)")
    }

    /// Declares a queue with arguments (`x-queue-type`, `x-max-priority`, `x-dead-letter-exchange`, ...).
    @available(*, noasync)
    @discardableResult
    public func declareQueue(_ name: String, durable: Bool = true, exclusive: Bool = false, autoDelete: Bool = false,
                             arguments: [String: AMQPArgument] = [:]) throws(AMQPError) -> (messages: Int, consumers: Int) {
        let state = try live()
        let ok = Self.withTable(arguments) { table in
            Self.withCStrings([name]) { b in
                amqp_queue_declare(state, channel, b[0], 0, durable ? 1 : 0, exclusive ? 1 : 0, autoDelete ? 1 : 0, table)
            }
        }
        try check("queue.declare \(name)")
        guard let ok else { return (0, 0) }
        return (Int(ok.pointee.message_count), Int(ok.pointee.consumer_count))
    }

    /// Binds a queue to an exchange.
    @available(*, noasync)
    public func bindQueue(_ queue: String, exchange: String, routingKey: String) throws(AMQPError) {
        let state = try live()
        Self.withCStrings([queue, exchange, routingKey]) { b in
            _ = amqp_queue_bind(state, channel, b[0], b[1], b[2], amqp_empty_table)
        }
        try check("queue.bind \(queue)")
    }

    /// Deletes a queue; returns how many messages it held.
    @available(*, noasync)
    @discardableResult
    public func deleteQueue(_ queue: String) throws(AMQPError) -> Int {
        let state = try live()
        let ok = Self.withCStrings([queue]) { b in amqp_queue_delete(state, channel, b[0], 0, 0) }
        try check("queue.delete \(queue)")
        return Int(ok?.pointee.message_count ?? 0)
    }

    /// Removes every ready message of a queue; returns how many.
    @available(*, noasync)
    @discardableResult
    public func purgeQueue(_ queue: String) throws(AMQPError) -> Int {
        let state = try live()
        let ok = Self.withCStrings([queue]) { b in amqp_queue_purge(state, channel, b[0]) }
        try check("queue.purge \(queue)")
        return Int(ok?.pointee.message_count ?? 0)
    }

    /// Counts the ready messages of a queue (a passive declare).
    @available(*, noasync)
    public func messageCount(_ queue: String) throws(AMQPError) -> Int {
        let state = try live()
        let ok = Self.withCStrings([queue]) { b in amqp_queue_declare(state, channel, b[0], 1, 0, 0, 0, amqp_empty_table) }
        try check("queue.declare (passive) \(queue)")
        return Int(ok?.pointee.message_count ?? 0)
    }

    // MARK: publishing

    /// Puts the channel in publisher-confirm mode.
    @available(*, noasync)
    public func enableConfirms() throws(AMQPError) {
        let state = try live()
        amqp_confirm_select(state, channel)
        try check("confirm.select")
        confirmMode = true
    }

    /// Publishes one message; in confirm mode returns its sequence number.
    @available(*, noasync)
    @discardableResult
    public func publish(_ message: AMQPOutgoingMessage) throws(AMQPError) -> UInt64 {
        let state = try live()
        let p = message.properties
        let expiration = p.expirationMilliseconds.map { String(max(0, $0)) }
        let status: Int32 = message.body.withUnsafeBufferPointer { body in
            Self.withBytes(p.contentType ?? "") { contentType in
                Self.withBytes(p.messageID ?? "") { messageID in
                    Self.withBytes(p.type ?? "") { type in
                        Self.withBytes(expiration ?? "") { expirationBytes in
                            var properties = reparto_properties(p.persistent ? 2 : 1, p.priority, contentType, messageID, type,
                                                                expirationBytes)
                            let bytes = amqp_bytes_t(len: body.count, bytes: UnsafeMutableRawPointer(mutating: body.baseAddress))
                            return Self.withCStrings([message.exchange, message.routingKey]) { b in
                                amqp_basic_publish(state, channel, b[0], b[1], message.mandatory ? 1 : 0, 0, &properties, bytes)
                            }
                        }
                    }
                }
            }
        }
        if status != AMQP_STATUS_OK.rawValue {
            throw AMQPError(.connection, "publish to \(message.exchange)/\(message.routingKey) failed: \(Self.statusText(status))")
        }
        guard confirmMode else { return 0 }
        let tag = nextPublishTag
        nextPublishTag += 1
        unconfirmed.append(tag)
        return tag
    }

    /// Publishes messages in order and returns the last one's sequence number (0 outside confirm
    /// mode, or for none). The socket is corked meanwhile (`TCP_CORK`), so the batch leaves in as
    /// few TCP segments as fit it instead of one per message: the broker reads it at once and
    /// delivers it to a consumer together, which then claims it in one statement instead of
    /// several (a producer's 14 jobs took 2.2 claims on average, one per segment read).
    @available(*, noasync)
    @discardableResult
    public func publish(_ messages: [AMQPOutgoingMessage]) throws(AMQPError) -> UInt64 {
        let socket = messages.count > 1 ? socketDescriptor : -1
        if socket >= 0 { Self.setCork(socket, true) }
        defer { if socket >= 0 { Self.setCork(socket, false) } }
        var last: UInt64 = 0
        for message in messages { last = try publish(message) }
        return last
    }

    /// Uncorking sends what the cork held back. A failure leaves the socket as it was: the
    /// messages then go out one segment each.
    private static func setCork(_ socket: Int32, _ on: Bool) {
        var value: Int32 = on ? 1 : 0
        _ = setsockopt(socket, Int32(IPPROTO_TCP), TCP_CORK, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Waits until the broker has confirmed every message published so far.
    ///
    /// Throws ``AMQPError/Kind/nacked`` when the broker rejected any of them (their tags are in the
    /// message), ``AMQPError/Kind/timeout`` when confirms do not arrive in time.
    @available(*, noasync)
    public func waitForConfirms(timeout: Double = 30) throws(AMQPError) {
        let deadline = Date().addingTimeInterval(timeout)
        while !unconfirmed.isEmpty {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { throw AMQPError(.timeout, "\(unconfirmed.count) publishes not confirmed within \(timeout) s") }
            _ = try readFrame(timeout: remaining)
        }
        if !nacked.isEmpty {
            let tags = nacked
            nacked.removeAll()
            throw AMQPError(.nacked, "broker rejected \(tags.count) published messages")
        }
    }

    /// Whether the broker has confirmed (acked or nacked) every message published up to `tag`.
    public func isConfirmed(through tag: UInt64) -> Bool {
        unconfirmed.first.map { $0 > tag } ?? true
    }

    /// The tags the broker nacked since the last call (or the last ``waitForConfirms(timeout:)``).
    public func takeNacked() -> [UInt64] {
        defer { nacked.removeAll() }
        return nacked
    }

    /// Reads and applies every frame already received (confirms, returns, closes) without waiting.
    @available(*, noasync)
    public func processReceivedFrames() throws(AMQPError) {
        while try readFrame(timeout: 0) {}
    }

    /// The connection's socket, for a `poll()` that waits on it together with others; -1 when closed.
    public var socketDescriptor: Int32 {
        guard let state else { return -1 }
        return amqp_get_sockfd(state)
    }

    /// Whether frames are already read or buffered, so that the socket may not turn readable for them.
    public var hasBufferedFrames: Bool {
        guard let state else { return false }
        return amqp_frames_enqueued(state) != 0 || amqp_data_in_buffer(state) != 0
    }

    /// The mandatory messages the broker returned as unroutable since the last call. A returned
    /// message is still confirmed (acked) afterwards, so a publisher that waits for confirms must
    /// also look here: an ack alone does not mean a queue took the message.
    public func takeReturned() -> [AMQPReturnedMessage] {
        defer { returned.removeAll() }
        return returned
    }

    /// Services heartbeats and pending confirms without blocking longer than `timeout`.
    @available(*, noasync)
    public func poll(timeout: Double) throws(AMQPError) {
        _ = try readFrame(timeout: timeout)
    }

    // MARK: consuming

    /// Sets the prefetch window of this channel's consumers.
    @available(*, noasync)
    public func setPrefetch(_ count: Int) throws(AMQPError) {
        let state = try live()
        amqp_basic_qos(state, channel, 0, UInt16(clamping: count), 0)
        try check("basic.qos")
    }

    /// Starts consuming a queue; returns the consumer tag.
    @available(*, noasync)
    @discardableResult
    public func consume(queue: String, consumerTag: String = "") throws(AMQPError) -> String {
        let state = try live()
        let ok = Self.withCStrings([queue, consumerTag]) { b in
            amqp_basic_consume(state, channel, b[0], b[1], 0, 0, 0, amqp_empty_table)
        }
        try check("basic.consume \(queue)")
        return ok.map { Self.string($0.pointee.consumer_tag) } ?? consumerTag
    }

    /// Stops a consumer; messages already delivered stay unacked until acked or the channel closes.
    @available(*, noasync)
    public func cancel(consumerTag: String) throws(AMQPError) {
        let state = try live()
        Self.withCStrings([consumerTag]) { b in _ = amqp_basic_cancel(state, channel, b[0]) }
        try check("basic.cancel")
    }

    /// Waits up to `timeout` seconds for the next delivery; nil on timeout.
    @available(*, noasync)
    public func nextDelivery(timeout: Double, generation: Int = 0) throws(AMQPError) -> AMQPDelivery? {
        let state = try live()
        amqp_maybe_release_buffers(state)
        var envelope = amqp_envelope_t()
        var tv = Self.timeval(seconds: timeout)
        let reply = amqp_consume_message(state, &envelope, &tv, 0)
        switch reply.reply_type {
        case AMQP_RESPONSE_NORMAL:
            defer { amqp_destroy_envelope(&envelope) }
            return Self.delivery(from: envelope, generation: generation)
        case AMQP_RESPONSE_LIBRARY_EXCEPTION where reply.library_error == AMQP_STATUS_TIMEOUT.rawValue:
            return nil
        case AMQP_RESPONSE_LIBRARY_EXCEPTION where reply.library_error == AMQP_STATUS_UNEXPECTED_STATE.rawValue:
            // A frame other than a delivery (a confirm, a channel.close, a server-side cancel).
            _ = try readFrame(timeout: 0)
            return nil
        default:
            throw Self.error(from: reply, context: "consume")
        }
    }

    /// Acknowledges one delivery, or with `multiple` every delivery up to and including `tag`.
    @available(*, noasync)
    public func ack(_ tag: UInt64, multiple: Bool = false) throws(AMQPError) {
        let state = try live()
        let status = amqp_basic_ack(state, channel, tag, multiple ? 1 : 0)
        if status != AMQP_STATUS_OK.rawValue { throw AMQPError(.connection, "ack failed: \(Self.statusText(status))") }
    }

    /// Rejects one delivery (or every one up to `tag` with `multiple`); without `requeue` it is dead-lettered.
    @available(*, noasync)
    public func nack(_ tag: UInt64, multiple: Bool = false, requeue: Bool) throws(AMQPError) {
        let state = try live()
        let status = amqp_basic_nack(state, channel, tag, multiple ? 1 : 0, requeue ? 1 : 0)
        if status != AMQP_STATUS_OK.rawValue { throw AMQPError(.connection, "nack failed: \(Self.statusText(status))") }
    }

    /// Closes channel and connection; idempotent.
    @available(*, noasync)
    public func close() {
        guard let state else { return }
        self.state = nil
        _ = amqp_channel_close(state, channel, Int32(AMQP_REPLY_SUCCESS))
        _ = amqp_connection_close(state, Int32(AMQP_REPLY_SUCCESS))
        _ = amqp_destroy_connection(state)
    }

    /// Drops the socket without the closing handshake (after a failure).
    @available(*, noasync)
    public func abandon() {
        guard let state else { return }
        self.state = nil
        _ = amqp_destroy_connection(state)
    }

    public var isOpen: Bool { state != nil }

    // MARK: internals

    private func live() throws(AMQPError) -> amqp_connection_state_t {
        guard let state else { throw AMQPError(.closed, "connection is closed") }
        return state
    }

    private func check(_ context: String) throws(AMQPError) {
        let state = try live()
        let reply = amqp_get_rpc_reply(state)
        if reply.reply_type != AMQP_RESPONSE_NORMAL {
            let error = Self.error(from: reply, context: context)
            if error.kind != .channelClosed { abandon() }
            throw error
        }
    }

    /// Reads one frame (if any arrives in time) and applies it: confirms, or closes.
    private func readFrame(timeout: Double) throws(AMQPError) -> Bool {
        let state = try live()
        var frame = amqp_frame_t()
        var tv = Self.timeval(seconds: timeout)
        let status = amqp_simple_wait_frame_noblock(state, &frame, &tv)
        if status == AMQP_STATUS_TIMEOUT.rawValue { return false }
        if status != AMQP_STATUS_OK.rawValue {
            abandon()
            throw AMQPError(.connection, "connection lost: \(Self.statusText(status))")
        }
        guard frame.frame_type == UInt8(AMQP_FRAME_METHOD) else { return true }
        let id = frame.payload.method.id
        let decoded = frame.payload.method.decoded
        if id == reparto_method_basic_ack() {
            let ack = decoded!.assumingMemoryBound(to: amqp_basic_ack_t.self).pointee
            confirm(ack.delivery_tag, multiple: ack.multiple != 0, nack: false)
        } else if id == reparto_method_basic_nack() {
            let nack = decoded!.assumingMemoryBound(to: amqp_basic_nack_t.self).pointee
            confirm(nack.delivery_tag, multiple: nack.multiple != 0, nack: true)
        } else if id == reparto_method_basic_return() {
            let method = decoded!.assumingMemoryBound(to: amqp_basic_return_t.self).pointee
            // Copied before the next read, which may reuse the frame's memory.
            var returnedMessage = AMQPReturnedMessage(replyCode: Int(method.reply_code), replyText: Self.string(method.reply_text),
                                                      exchange: Self.string(method.exchange),
                                                      routingKey: Self.string(method.routing_key), body: [])
            var message = amqp_message_t()
            // The content header and body frames follow the method: read them before anything else.
            let reply = amqp_read_message(state, channel, &message, 0)
            guard reply.reply_type == AMQP_RESPONSE_NORMAL else {
                abandon()
                throw Self.error(from: reply, context: "reading a returned message")
            }
            defer { amqp_destroy_message(&message) }
            let body: [UInt8] = message.body.len == 0 ? [] : Array(UnsafeRawBufferPointer(start: message.body.bytes, count: message.body.len))
            returnedMessage.body = body
            returned.append(returnedMessage)
        } else if id == reparto_method_channel_close() {
            let close = decoded!.assumingMemoryBound(to: amqp_channel_close_t.self).pointee
            abandon()
            throw AMQPError(.channelClosed, replyCode: Int(close.reply_code), "channel closed by broker: \(Self.string(close.reply_text))")
        } else if id == reparto_method_connection_close() {
            let close = decoded!.assumingMemoryBound(to: amqp_connection_close_t.self).pointee
            abandon()
            throw AMQPError(.connectionClosed, replyCode: Int(close.reply_code), "connection closed by broker: \(Self.string(close.reply_text))")
        } else if id == reparto_method_basic_cancel() {
            abandon()
            throw AMQPError(.channelClosed, "consumer cancelled by broker (queue deleted?)")
        }
        return true
    }

    private func confirm(_ tag: UInt64, multiple: Bool, nack: Bool) {
        if multiple {
            let end = unconfirmed.firstIndex { $0 > tag } ?? unconfirmed.endIndex
            if nack { nacked.append(contentsOf: unconfirmed[..<end]) }
            unconfirmed.removeSubrange(..<end)
        } else if let index = unconfirmed.firstIndex(of: tag) {
            unconfirmed.remove(at: index)
            if nack { nacked.append(tag) }
        }
    }

    private static func delivery(from envelope: amqp_envelope_t, generation: Int) -> AMQPDelivery {
        var properties = envelope.message.properties
        let body = envelope.message.body
        let bytes: [UInt8] = body.len == 0 ? [] :
            Array(UnsafeRawBufferPointer(start: body.bytes, count: body.len))
        return AMQPDelivery(
            deliveryTag: envelope.delivery_tag,
            redelivered: envelope.redelivered != 0,
            exchange: string(envelope.exchange),
            routingKey: string(envelope.routing_key),
            consumerTag: string(envelope.consumer_tag),
            body: bytes,
            type: reparto_properties_has_type(&properties) != 0 ? string(properties.type) : nil,
            messageID: reparto_properties_has_message_id(&properties) != 0 ? string(properties.message_id) : nil,
            priority: reparto_properties_has_priority(&properties) != 0 ? properties.priority : nil,
            generation: generation)
    }

    static func error(from reply: amqp_rpc_reply_t, context: String) -> AMQPError {
        switch reply.reply_type {
        case AMQP_RESPONSE_SERVER_EXCEPTION:
            if reply.reply.id == reparto_method_connection_close(), let decoded = reply.reply.decoded {
                let close = decoded.assumingMemoryBound(to: amqp_connection_close_t.self).pointee
                return AMQPError(.connectionClosed, replyCode: Int(close.reply_code), "\(context): \(string(close.reply_text))")
            }
            if reply.reply.id == reparto_method_channel_close(), let decoded = reply.reply.decoded {
                let close = decoded.assumingMemoryBound(to: amqp_channel_close_t.self).pointee
                return AMQPError(.channelClosed, replyCode: Int(close.reply_code), "\(context): \(string(close.reply_text))")
            }
            return AMQPError(.connectionClosed, "\(context): unexpected server method \(reply.reply.id)")
        case AMQP_RESPONSE_LIBRARY_EXCEPTION:
            let kind: AMQPError.Kind = reply.library_error == AMQP_STATUS_TIMEOUT.rawValue ? .timeout : .connection
            return AMQPError(kind, "\(context): \(statusText(reply.library_error))")
        default:
            return AMQPError(.connection, "\(context): no reply from broker")
        }
    }

    static func statusText(_ status: Int32) -> String {
        guard let text = amqp_error_string2(status) else { return "status \(status)" }
        return String(cString: text)
    }

    static func string(_ bytes: amqp_bytes_t) -> String {
        guard bytes.len > 0, let base = bytes.bytes else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: base, count: bytes.len), as: UTF8.self)
    }

    static func timeval(seconds: Double) -> timeval {
        let clamped = max(0, seconds)
        let whole = Int(clamped)
        return Glibc.timeval(tv_sec: whole, tv_usec: Int((clamped - Double(whole)) * 1_000_000))
    }

    private static func withBytes<T>(_ string: String, _ body: (amqp_bytes_t) -> T) -> T {
        var string = string
        return string.withUTF8 { buffer in
            body(amqp_bytes_t(len: buffer.count, bytes: UnsafeMutableRawPointer(mutating: buffer.baseAddress)))
        }
    }

    /// Byte strings that stay valid for the whole call (a Swift string's temporary C pointer does not).
    private static func withCStrings<T>(_ strings: [String], _ body: ([amqp_bytes_t]) -> T) -> T {
        let copies = strings.map { strdup($0)! }
        defer { copies.forEach { free($0) } }
        return body(copies.map { amqp_cstring_bytes($0) })
    }

    private static func withTable<T>(_ arguments: [String: AMQPArgument], _ body: (amqp_table_t) -> T) -> T {
        if arguments.isEmpty { return body(amqp_empty_table) }
        var owned: [UnsafeMutablePointer<CChar>] = []
        defer { owned.forEach { free($0) } }
        func dup(_ s: String) -> UnsafeMutablePointer<CChar> {
            let p = strdup(s)!
            owned.append(p)
            return p
        }
        var entries: [amqp_table_entry_t] = arguments.sorted { $0.key < $1.key }.map { key, value in
            switch value {
            case .long(let number): return reparto_table_entry_long(dup(key), number)
            case .string(let text): return reparto_table_entry_string(dup(key), dup(text))
            }
        }
        return entries.withUnsafeMutableBufferPointer { buffer in
            body(amqp_table_t(num_entries: Int32(buffer.count), entries: buffer.baseAddress))
        }
    }
}
