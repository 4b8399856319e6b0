import AMQP
import Foundation
import Logging
import RepartoTestSupport
import Synchronization
import Testing

@Suite("AMQP against the local RabbitMQ", .timeLimit(.minutes(1)))
struct AMQPConnectionTests {
    let configuration: AMQPConfiguration

    init() throws {
        configuration = try AMQPConfiguration(url: TestEnvironment.amqpURL())
    }

    @Test func parsesURLsAndHidesThePassword() throws {
        let parsed = try AMQPConfiguration(url: "amqp://alice:s%40cret@broker.example:5673/prod%2Fjobs?heartbeat=10")
        #expect(parsed.user == "alice")
        #expect(parsed.password == "s@cret")
        #expect(parsed.port == 5673)
        #expect(parsed.virtualHost == "prod/jobs")
        #expect(parsed.heartbeat == 10)
        #expect(!parsed.description.contains("s@cret"))
        #expect(throws: AMQPError.self) { try AMQPConfiguration(url: "http://nope") }
    }

    @Test func publishesWithConfirmsAndConsumes() throws {
        let queue = TestEnvironment.uniqueName("test-amqp")
        let connection = try AMQPConnection.connect(configuration)
        defer { connection.close() }
        try connection.declareQueue(queue, durable: false, autoDelete: false, arguments: ["x-max-priority": .long(9)])
        defer { _ = try? connection.deleteQueue(queue) }
        try connection.enableConfirms()
        for i in 0..<500 {
            try connection.publish(AMQPOutgoingMessage(
                exchange: "", routingKey: queue, body: Array("message \(i)".utf8),
                properties: AMQPMessageProperties(priority: 0, messageID: "id-\(i)", type: "test.kind")))
        }
        try connection.waitForConfirms(timeout: 10)
        #expect(try connection.messageCount(queue) == 500)

        try connection.setPrefetch(100)
        try connection.consume(queue: queue, consumerTag: "t")
        var received: [String] = []
        while received.count < 500, let delivery = try connection.nextDelivery(timeout: 5) {
            #expect(delivery.type == "test.kind")
            #expect(delivery.messageID == "id-\(received.count)")
            received.append(String(decoding: delivery.body, as: UTF8.self))
            try connection.ack(delivery.deliveryTag, multiple: received.count % 50 == 0)
            if received.count % 50 != 0 { continue }
        }
        #expect(received.count == 500)
        #expect(received.first == "message 0")
        #expect(received.last == "message 499")
    }

    /// A batch goes out with the socket corked; it is uncorked after it, or a lone publish
    /// afterwards would sit in the kernel for up to 200 ms. Tags run on from the batch's last.
    @Test func aBatchIsPublishedInOrderAndLeavesTheSocketUncorked() throws {
        let queue = TestEnvironment.uniqueName("test-amqp-batch")
        let connection = try AMQPConnection.connect(configuration)
        defer { connection.close() }
        try connection.declareQueue(queue, durable: true)
        defer { _ = try? connection.deleteQueue(queue) }
        try connection.enableConfirms()
        let batch = (0..<14).map { AMQPOutgoingMessage(exchange: "", routingKey: queue, body: Array("job \($0)".utf8)) }
        #expect(try connection.publish(batch) == 14)
        #expect(Self.corked(connection.socketDescriptor) == 0)
        #expect(try connection.publish([AMQPOutgoingMessage(exchange: "", routingKey: queue, body: Array("job 14".utf8))]) == 15)
        #expect(try connection.publish([AMQPOutgoingMessage]()) == 0)
        try connection.waitForConfirms(timeout: 10)

        try connection.consume(queue: queue, consumerTag: "t")
        var received: [String] = []
        while received.count < 15, let delivery = try connection.nextDelivery(timeout: 5) {
            received.append(String(decoding: delivery.body, as: UTF8.self))
            try connection.ack(delivery.deliveryTag)
        }
        #expect(received == (0..<15).map { "job \($0)" })
    }

    private static func corked(_ socket: Int32) -> Int32 {
        var value: Int32 = -1
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(socket, Int32(IPPROTO_TCP), TCP_CORK, &value, &length) == 0 ? value : -1
    }

    @Test func unackedMessagesReturnWhenTheConnectionCloses() throws {
        let queue = TestEnvironment.uniqueName("test-amqp-requeue")
        let admin = try AMQPConnection.connect(configuration)
        defer { _ = try? admin.deleteQueue(queue); admin.close() }
        try admin.declareQueue(queue, durable: true)
        try admin.enableConfirms()
        try admin.publish(AMQPOutgoingMessage(exchange: "", routingKey: queue, body: Array("once".utf8)))
        try admin.waitForConfirms()

        let first = try AMQPConnection.connect(configuration)
        try first.consume(queue: queue)
        let delivery = try #require(try first.nextDelivery(timeout: 5))
        #expect(!delivery.redelivered)
        first.close() // no ack

        let second = try AMQPConnection.connect(configuration)
        defer { second.close() }
        try second.consume(queue: queue)
        let again = try #require(try second.nextDelivery(timeout: 5))
        #expect(again.redelivered)
        #expect(again.body == Array("once".utf8))
        try second.ack(again.deliveryTag)
    }

    @Test func rejectedMessagesAreDeadLettered() throws {
        let queue = TestEnvironment.uniqueName("test-amqp-dlx")
        let dead = queue + ".dead"
        let connection = try AMQPConnection.connect(configuration)
        defer { _ = try? connection.deleteQueue(queue); _ = try? connection.deleteQueue(dead); connection.close() }
        try connection.declareQueue(dead, durable: false)
        try connection.declareQueue(queue, durable: false, arguments: [
            "x-dead-letter-exchange": .string(""), "x-dead-letter-routing-key": .string(dead),
        ])
        try connection.publish(AMQPOutgoingMessage(exchange: "", routingKey: queue, body: [1, 2, 3]))
        try connection.consume(queue: queue)
        let delivery = try #require(try connection.nextDelivery(timeout: 5))
        try connection.nack(delivery.deliveryTag, requeue: false)
        let probe = try AMQPConnection.connect(configuration)
        defer { probe.close() }
        var count = 0
        for _ in 0..<50 where count == 0 {
            count = try probe.messageCount(dead)
            if count == 0 { Thread.sleep(forTimeInterval: 0.05) } // dead-lettering is asynchronous in the broker
        }
        #expect(count == 1)
    }

    @Test func wrongPasswordIsAnAuthenticationError() throws {
        var bad = configuration
        bad.password = "definitely-not-the-password"
        do {
            _ = try AMQPConnection.connect(bad)
            Issue.record("login with a wrong password succeeded")
        } catch {
            #expect(error.kind == .authentication)
            #expect(!error.description.contains("definitely-not-the-password"))
        }
    }

    @Test func unreachableBrokerIsAConnectionError() throws {
        var bad = configuration
        bad.port = 1
        bad.connectTimeout = 1
        #expect(throws: AMQPError.self) { _ = try AMQPConnection.connect(bad) }
    }

    @Test func redeclaringWithOtherArgumentsIsAPreconditionFailure() throws {
        let queue = TestEnvironment.uniqueName("test-amqp-406")
        let connection = try AMQPConnection.connect(configuration)
        try connection.declareQueue(queue, durable: false, arguments: ["x-max-priority": .long(5)])
        do {
            try connection.declareQueue(queue, durable: false, arguments: ["x-max-priority": .long(7)])
            Issue.record("conflicting redeclare succeeded")
        } catch {
            #expect(error.replyCode == 406)
        }
        let cleanup = try AMQPConnection.connect(configuration)
        _ = try? cleanup.deleteQueue(queue)
        cleanup.close()
    }
}

@Suite("AMQP threaded consumer", .timeLimit(.minutes(1)))
struct AMQPThreadedTests {
    @Test func publishedBatchReachesTheConsumer() async throws {
        let configuration = try AMQPConfiguration(url: TestEnvironment.amqpURL())
        let queue = TestEnvironment.uniqueName("test-amqp-threads")
        let setup: @Sendable (AMQPConnection) throws -> Void = { try $0.declareQueue(queue, durable: true) }
        let messages = (0..<2000).map { AMQPOutgoingMessage(exchange: "", routingKey: queue, body: Array("\($0)".utf8)) }
        try Self.publish(configuration, setup: setup, windows: [Array(messages[..<1000]), Array(messages[1000...])])

        let consumer = AMQPConsumer(configuration: configuration,
                                    settings: .init(queues: [queue], prefetch: 300, setup: setup),
                                    logger: Logger(label: "test"))
        let seen = Mutex(Set<String>())
        let (done, finish) = AsyncStream.makeStream(of: Void.self)
        consumer.start { deliveries in
            let count = seen.withLock { seen in
                seen.formUnion(deliveries.map { String(decoding: $0.body, as: UTF8.self) })
                return seen.count
            }
            deliveries.forEach(consumer.ack)
            if count == 2000 { finish.yield() }
        }
        for await _ in done { break }
        await consumer.close()
        #expect(seen.withLock { $0.count } == 2000)
        #expect(try Self.drainCount(configuration, queue) == 0) // every ack reached the broker
    }

    /// Started with a receiver, the consumer hands deliveries to it on its own thread, in order
    /// and in batches of what had arrived (the 2,000 messages are all in the queue before it
    /// consumes, so batches hold more than one), never more than the prefetch at once.
    @Test func aReceiverGetsTheDeliveriesInOrderAndInBatches() async throws {
        let configuration = try AMQPConfiguration(url: TestEnvironment.amqpURL())
        let queue = TestEnvironment.uniqueName("test-amqp-receive")
        let setup: @Sendable (AMQPConnection) throws -> Void = { try $0.declareQueue(queue, durable: true) }
        let messages = (0..<2000).map { AMQPOutgoingMessage(exchange: "", routingKey: queue, body: Array("\($0)".utf8)) }
        try Self.publish(configuration, setup: setup, windows: [messages])

        let consumer = AMQPConsumer(configuration: configuration,
                                    settings: .init(queues: [queue], prefetch: 300, setup: setup),
                                    logger: Logger(label: "test"))
        let received = Mutex<(bodies: [String], batches: [Int])>(([], []))
        let (done, finish) = AsyncStream.makeStream(of: Void.self)
        consumer.start { deliveries in
            let count = received.withLock { received in
                received.bodies += deliveries.map { String(decoding: $0.body, as: UTF8.self) }
                received.batches.append(deliveries.count)
                return received.bodies.count
            }
            deliveries.forEach(consumer.ack)
            if count >= 2000 { finish.yield() }
        }
        for await _ in done { break }
        await consumer.close()
        let (bodies, batches) = received.withLock { $0 }
        #expect(bodies == (0..<2000).map { "\($0)" }, "every message, in order")
        #expect(batches.contains { $0 > 1 }, "batches of what had arrived: \(batches.prefix(20))")
        #expect(batches.allSatisfy { $0 <= 300 }, "never more than the prefetch")
        #expect(try Self.drainCount(configuration, queue) == 0) // every ack reached the broker
    }

    /// Publishes each window and waits for its confirms, as the outbox relay does (blocking, so
    /// outside async code).
    static func publish(_ configuration: AMQPConfiguration, setup: (AMQPConnection) throws -> Void,
                        windows: [[AMQPOutgoingMessage]]) throws {
        let connection = try AMQPConnection.connect(configuration)
        defer { connection.close() }
        try setup(connection)
        try connection.enableConfirms()
        for window in windows {
            for message in window { _ = try connection.publish(message) }
            try connection.waitForConfirms()
        }
    }

    /// Counts what is left in the queue and deletes it (blocking, so outside async code).
    static func drainCount(_ configuration: AMQPConfiguration, _ queue: String) throws -> Int {
        let check = try AMQPConnection.connect(configuration)
        defer { _ = try? check.deleteQueue(queue); check.close() }
        return try check.messageCount(queue)
    }
}
