import AMQP
import Foundation
import Postgres
@testable import RepartoRuntime
import RepartoTestSupport
import Testing

/// A producer's ``JobPublisher``: due jobs go to the broker right after their commit, and
/// whatever the broker does not take is left to the outbox relay, flagged again. No relay runs in
/// these tests unless one is started.
@Suite("the producer publishes its due jobs; the relay what the broker did not take", .timeLimit(.minutes(4)))
struct JobPublisherTests {
    private func publishingClient(_ cluster: TestCluster, amqp: AMQPConfiguration? = nil) -> (JobClient, JobPublisher) {
        let publisher = JobPublisher(amqp: amqp ?? cluster.amqp, namespace: cluster.name, logger: cluster.logger)
        return (JobClient(postgres: cluster.postgres, publisher: publisher), publisher)
    }

    /// Whether each job is flagged for the relay, in the order of `ids`.
    private func flagged(_ ids: [UUID], _ cluster: TestCluster) async throws -> [Bool] {
        var byID: [UUID: Bool] = [:]
        for row in try await cluster.postgres.query("SELECT id, publish_pending FROM jobs WHERE id = ANY($1::uuid[])", [ids]) {
            if let id = row.uuid("id") { byID[id] = row.bool("publish_pending") }
        }
        return ids.map { byID[$0] ?? false }
    }

    /// Messages ready in the cluster's `default` queue.
    private func ready(_ cluster: TestCluster) async throws -> Int {
        try await cluster.onBroker { connection, queue in try connection.messageCount(queue) }
    }

    @Test func dueJobsArePublishedAtTheirCommitAndEachRunsOnce() async throws {
        let cluster = try await TestCluster.make()
        try await cluster.installSuccessLog()
        let (client, publisher) = publishingClient(cluster)
        let due = try await client.enqueue((0..<20).map { _ in try JobRequest(NoopJob()) })
        let later = try await client.enqueue(NoopJob(), options: JobOptions(runAfter: Date().addingTimeInterval(3600)))
        let keyed = try await client.enqueue(NoopJob(), options: JobOptions(idempotencyKey: "once"))
        #expect(try await client.enqueue(NoopJob(), options: JobOptions(idempotencyKey: "once")) == keyed)
        // In the broker when enqueue returns, with no relay anywhere; the repeated key published nothing.
        #expect(try await ready(cluster) == due.count + 1)
        #expect(try await flagged(due + [keyed], cluster) == Array(repeating: false, count: due.count + 1))
        // The delayed job is the relay's, when it is due.
        #expect(try await flagged([later], cluster) == [true])
        #expect(try await cluster.postgres.withConnection { try JobStore.takeOutbox(limit: 100, on: $0) }.isEmpty)
        await publisher.stop()
        try await cluster.expectEachRunsOnce(due + [keyed], after: "the producer published them")
        #expect(try await cluster.count("SELECT count(*) AS n FROM jobs WHERE id = $1 AND state = 'queued'", [later]) == 1)
        await cluster.shutdown()
    }

    @Test func jobsForABrokerThatCannotBeReachedAreLeftToTheRelay() async throws {
        let cluster = try await TestCluster.make()
        try await cluster.installSuccessLog()
        var nowhere = cluster.amqp
        nowhere.port = 1 // nothing listens there: the connection is refused
        let (client, publisher) = publishingClient(cluster, amqp: nowhere)
        let first = try await client.enqueue((0..<5).map { _ in try JobRequest(NoopJob()) })
        // The next connect is put off: these go to the relay without another try.
        let second = try await client.enqueue((0..<5).map { _ in try JobRequest(NoopJob()) })
        #expect(try await flagged(first + second, cluster) == Array(repeating: true, count: 10))
        await publisher.stop()
        try await cluster.expectEachRunsOnce(first + second, after: "the relay published them")
        await cluster.shutdown()
    }

    @Test func aReturnedJobIsLeftToTheRelayAndItsQueueDeclaredAgain() async throws {
        let cluster = try await TestCluster.make()
        let (client, publisher) = publishingClient(cluster)
        let first = try await client.enqueue(NoopJob())
        #expect(try await ready(cluster) == 1)
        // The queue goes after the publisher declared it: the next message has nowhere to go.
        _ = try await cluster.onBroker { connection, queue in try connection.deleteQueue(queue) }
        let returned = try await client.enqueue(NoopJob())
        let third = try await client.enqueue(NoopJob())
        #expect(try await flagged([first, returned, third], cluster) == [false, true, false])
        #expect(try await ready(cluster) == 1, "the third, in the queue declared again")
        await publisher.stop()
        await cluster.shutdown()
    }

    @Test func jobsOfAQueueTheBrokerRefusesAreLeftToTheRelay() async throws {
        let cluster = try await TestCluster.make()
        let odd = JobTopology.queueName("odd", namespace: cluster.name)
        // Declared elsewhere without the priority and dead-letter arguments: the publisher's declare is refused.
        _ = try await cluster.onBroker { connection, _ in try connection.declareQueue(odd, durable: true, arguments: [:]) }
        let (client, publisher) = publishingClient(cluster)
        let ids = try await client.enqueue([JobRequest(kind: "noop", queue: "odd", parameters: Data("{}".utf8))])
        #expect(try await flagged(ids, cluster) == [true])
        #expect(try await cluster.count("SELECT count(*) AS n FROM jobs WHERE state = 'queued'") == 1)
        await publisher.stop()
        _ = try? await cluster.onBroker { connection, _ in try connection.deleteQueue(odd) }
        await cluster.shutdown()
    }

    @Test func aSubmissionLargerThanThePublishersLimitIsLeftToTheRelay() async throws {
        let cluster = try await TestCluster.make()
        let publisher = JobPublisher(amqp: cluster.amqp, namespace: cluster.name, maxJobsPerEnqueue: 5, logger: cluster.logger)
        let client = JobClient(postgres: cluster.postgres, publisher: publisher)
        let large = try await client.enqueue((0..<6).map { _ in try JobRequest(NoopJob()) })
        let small = try await client.enqueue((0..<5).map { _ in try JobRequest(NoopJob()) })
        #expect(try await flagged(large, cluster) == Array(repeating: true, count: 6))
        #expect(try await flagged(small, cluster) == Array(repeating: false, count: 5))
        #expect(try await ready(cluster) == 5)
        await publisher.stop()
        await cluster.shutdown()
    }

    @Test func aStoppedPublisherLeavesNewJobsToTheRelay() async throws {
        let cluster = try await TestCluster.make()
        let (client, publisher) = publishingClient(cluster)
        let before = try await client.enqueue(NoopJob())
        await publisher.stop()
        let after = try await client.enqueue(NoopJob())
        #expect(try await flagged([before, after], cluster) == [false, true])
        #expect(try await ready(cluster) == 1)
        await cluster.shutdown()
    }

    /// A producer that dies between its commit and its publish leaves jobs marked published with
    /// no message: the leading relay's comparison with the broker's queues publishes them.
    @Test func jobsOfAProducerThatDiedAfterItsCommitEachRunOnce() async throws {
        let cluster = try await TestCluster.make()
        try await cluster.installSuccessLog()
        let requests = try (0..<200).map { _ in try JobRequest(NoopJob()) }
        let inserted = try await cluster.postgres.withConnection { try JobStore.insert(requests, publishing: true, on: $0) }
        #expect(Set(inserted.toPublish.map(\.id)) == Set(inserted.ids))
        #expect(try await cluster.count("SELECT count(*) AS n FROM jobs WHERE publish_pending") == 0)
        // A relay that compares often, so the test does not wait the default 5 + 10 s.
        let relay = OutboxRelay(postgres: cluster.postgresConfiguration, amqp: cluster.amqp, namespace: cluster.name,
                                logger: cluster.logger, lostCheckInterval: 0.5, lostGrace: 1)
        relay.start()
        try await cluster.expectEachRunsOnce(inserted.ids, after: "their producer died before publishing them")
        await relay.stop()
        await cluster.shutdown()
    }
}
