import AMQP
import Foundation
@testable import RepartoRuntime
import Logging
import Postgres
import RepartoTestSupport
import Testing
import Threading

/// Work cannot kill the workers: a job that keeps taking its worker down is dead-lettered, the
/// jobs a dead worker held but had not started are handed back uncounted, the broker losing
/// messages loses no job, and namespaces on one database and broker see only their own jobs.
@Suite("crash containment, the database as the truth, namespaces", .timeLimit(.minutes(4)))
struct ContainmentTests {
    /// A `reparto worker` subprocess with one handler slot, so the jobs queued behind a running
    /// one are delivered (prefetched) but cannot start.
    private func startWorker(_ cluster: TestCluster) throws -> Process {
        try RepartoProcess.start(TestCluster.workerArguments(["--concurrency", "1", "--prefetch", "50"]),
                                 environment: cluster.processEnvironment())
    }

    @Test func aJobWhoseWorkerDiesTwiceIsDeadAndTheJobsHeldBehindItAreNotCharged() async throws {
        let cluster = try await TestCluster.make()
        let coordinator = cluster.startCoordinator()
        // The poison: a long job whose worker is killed (as the OOM killer or a trap in a C
        // library would) each time it runs.
        let poison = try await cluster.client.enqueue(SleepJob(seconds: 600), options: JobOptions(maxAttempts: 10))
        var victim = try startWorker(cluster)
        for round in 1...2 {
            try await cluster.wait(timeout: 90, for: "the poison job to run (round \(round))") {
                try await cluster.count("SELECT count(*) AS n FROM jobs WHERE id = $1 AND state = 'running' AND attempts = $2",
                                        [poison, round]) == 1
            }
            if round == 1 {
                // Innocent jobs queued behind it: delivered to the victim's prefetch, never started.
                _ = try await cluster.client.enqueue((0..<40).map { _ in try JobRequest(NoopJob()) })
                try await cluster.wait(for: "the innocent jobs to be published") {
                    try await cluster.count("SELECT count(*) AS n FROM jobs WHERE kind = 'noop' AND publish_pending") == 0
                }
            }
            kill(victim.processIdentifier, SIGKILL)
            await RepartoProcess.waitForExit(victim)
            victim = try startWorker(cluster)
        }
        try await cluster.wait(timeout: 90, for: "the poison job to be dead and every innocent job to succeed") {
            let dead = try await cluster.count("SELECT count(*) AS n FROM jobs WHERE id = $1 AND state = 'dead'", [poison])
            let innocent = try await cluster.count("SELECT count(*) AS n FROM jobs WHERE kind = 'noop' AND state = 'succeeded'")
            return dead == 1 && innocent == 40
        }
        let row = try #require(try await cluster.postgres.query("SELECT last_error, crashes, attempts FROM jobs WHERE id = $1", [poison]).first)
        #expect(row.string("last_error")?.contains("crashed its worker 2 times") == true, "\(row.string("last_error") ?? "")")
        #expect(row.int("attempts") == 2, "it ran twice and was never delivered again")
        // Claimed only when a slot was free: no crash charged an attempt to a job that never ran.
        #expect(try await cluster.count("SELECT count(*) AS n FROM jobs WHERE kind = 'noop' AND attempts <> 1") == 0)
        #expect(victim.isRunning, "the third worker took no poison")
        kill(victim.processIdentifier, SIGTERM)
        await RepartoProcess.waitForExit(victim)
        try await coordinator.stop()
        await cluster.shutdown()
    }

    /// The jobs running beside a poison job when it kills its worker lose their worker too.
    /// Charged that crash, rescued and delivered together, they ran beside it again and died with
    /// it (crash limit 2). Now a crash beside others only makes a suspect, a suspect runs alone,
    /// and only crashes alone count: the poison job is dead after two of those, and the jobs that
    /// ran beside it the first time succeed on their next attempt.
    @Test func jobsThatRanBesideAPoisonJobAreNotKilledWithIt() async throws {
        let cluster = try await TestCluster.make()
        let coordinator = cluster.startCoordinator()
        let concurrency = ["--concurrency", "4", "--prefetch", "50"]
        var victim = try RepartoProcess.start(TestCluster.workerArguments(concurrency), environment: cluster.processEnvironment())
        let poison = try await cluster.client.enqueue(SleepJob(seconds: 600), options: JobOptions(maxAttempts: 10))
        let innocent = try await cluster.client.enqueue((0..<3).map { _ in
            try JobRequest(SleepJob(seconds: 8), options: JobOptions(maxAttempts: 10))
        })
        let all = [poison] + innocent
        try await cluster.wait(timeout: 90, for: "the poison job and the three others to run together") {
            try await cluster.count("SELECT count(*) AS n FROM jobs WHERE id = ANY($1::uuid[]) AND state = 'running'", [all]) == 4
        }
        kill(victim.processIdentifier, SIGKILL)
        await RepartoProcess.waitForExit(victim)
        // Beside others its crash only made it a suspect: it runs alone, and dies alone twice.
        for attempt in 2...3 {
            victim = try RepartoProcess.start(TestCluster.workerArguments(concurrency), environment: cluster.processEnvironment())
            try await cluster.wait(timeout: 120, for: "the poison job's attempt \(attempt)") {
                try await cluster.count("SELECT count(*) AS n FROM jobs WHERE id = $1 AND state = 'running' AND attempts = $2",
                                        [poison, attempt]) == 1
            }
            #expect(try await cluster.count("SELECT count(*) AS n FROM jobs WHERE id = ANY($1::uuid[]) AND state = 'running'", [innocent]) == 0,
                    "a suspect runs alone: nothing runs beside the poison job (attempt \(attempt))")
            kill(victim.processIdentifier, SIGKILL)
            await RepartoProcess.waitForExit(victim)
        }
        victim = try RepartoProcess.start(TestCluster.workerArguments(concurrency), environment: cluster.processEnvironment())
        try await cluster.wait(timeout: 120, for: "the poison job to be dead and the three others to succeed") {
            let dead = try await cluster.count("SELECT count(*) AS n FROM jobs WHERE id = $1 AND state = 'dead'", [poison])
            let done = try await cluster.count("SELECT count(*) AS n FROM jobs WHERE id = ANY($1::uuid[]) AND state IN ('succeeded', 'dead')", [innocent])
            return dead == 1 && done == 3
        }
        let row = try #require(try await cluster.postgres.query("SELECT last_error FROM jobs WHERE id = $1", [poison]).first)
        #expect(row.string("last_error")?.contains("crashed its worker 2 times in a row running alone") == true, "\(row.string("last_error") ?? "")")
        #expect(try await cluster.count("SELECT count(*) AS n FROM jobs WHERE id = ANY($1::uuid[]) AND state = 'succeeded' AND crashes = 0",
                                        [innocent]) == 3, "each ran alone after the first crash and succeeded")
        kill(victim.processIdentifier, SIGTERM)
        await RepartoProcess.waitForExit(victim)
        try await coordinator.stop()
        await cluster.shutdown()
    }

    /// Publishes `count` no-op jobs with no worker running and waits until the broker holds them all.
    private func publishedBacklog(_ cluster: TestCluster, count: Int) async throws -> [UUID] {
        let ids = try await cluster.client.enqueue((0..<count).map { _ in try JobRequest(NoopJob()) })
        let queue = JobTopology.queueName("default", namespace: cluster.name)
        let amqp = cluster.amqp
        try await cluster.wait(for: "the backlog to be published and confirmed") {
            guard try await cluster.count("SELECT count(*) AS n FROM jobs WHERE publish_pending") == 0 else { return false }
            return try await BlockingWork.run {
                let connection = try AMQPConnection.connect(amqp)
                defer { connection.close() }
                return try connection.messageCount(queue)
            } == count
        }
        return ids
    }

    @Test(arguments: ["purge", "delete"])
    func aQueueTheBrokerLostIsPublishedAgainAndEveryJobRunsOnce(_ loss: String) async throws {
        let cluster = try await TestCluster.make()
        try await cluster.installSuccessLog()
        // A relay that compares often, so the test does not wait the default 5 + 10 s.
        let relay = OutboxRelay(postgres: cluster.postgresConfiguration, amqp: cluster.amqp, namespace: cluster.name,
                                logger: cluster.logger, lostCheckInterval: 0.5, lostGrace: 1)
        relay.start()
        let ids = try await publishedBacklog(cluster, count: 2000)
        let lost = try await cluster.onBroker { connection, queue in
            loss == "purge" ? try connection.purgeQueue(queue) : try connection.deleteQueue(queue)
        }
        #expect(lost == ids.count, "the broker dropped the whole backlog")
        try await cluster.expectEachRunsOnce(ids, after: "the broker lost them")
        await relay.stop()
        await cluster.shutdown()
    }

    /// A relay clears a batch's flags when it takes it, before the broker has the messages: one
    /// that dies in between leaves jobs marked published with no message anywhere. The leader's
    /// comparison with the broker's queues finds them, and each runs once.
    @Test func aBatchTakenByARelayThatDiedBeforePublishingRunsOnce() async throws {
        let cluster = try await TestCluster.make()
        try await cluster.installSuccessLog()
        let ids = try await cluster.client.enqueue((0..<300).map { _ in try JobRequest(NoopJob()) })
        // The dead relay's take: flags cleared, nothing published.
        let taken = try await cluster.postgres.withConnection { try JobStore.takeOutbox(limit: 1000, on: $0) }
        #expect(Set(taken.map(\.id)) == Set(ids))
        #expect(try await cluster.count("SELECT count(*) AS n FROM jobs WHERE publish_pending") == 0)
        let relay = OutboxRelay(postgres: cluster.postgresConfiguration, amqp: cluster.amqp, namespace: cluster.name,
                                logger: cluster.logger, lostCheckInterval: 0.5, lostGrace: 1)
        relay.start()
        try await cluster.expectEachRunsOnce(ids, after: "a relay took them and died")
        await relay.stop()
        await cluster.shutdown()
    }

    @Test func aQueueDeclaredWithOtherArgumentsFailsItsJobsAndNoOthers() async throws {
        let cluster = try await TestCluster.make()
        // Someone declared the `odd` queue without the priority and dead-letter arguments.
        _ = try await cluster.onBroker { connection, _ in
            try connection.declareQueue(JobTopology.queueName("odd", namespace: cluster.name), durable: true, arguments: [:])
            return 0
        }
        let coordinator = cluster.startCoordinator()
        let worker = cluster.startWorker()
        let odd = try #require(try await cluster.client.enqueue([JobRequest(kind: "noop", queue: "odd", parameters: Data("{}".utf8))]).first)
        let fine = try await cluster.client.enqueue((0..<20).map { _ in try JobRequest(NoopJob()) })
        try await cluster.wait(for: "the odd queue's job to fail and the others to succeed") {
            let dead = try await cluster.count("SELECT count(*) AS n FROM jobs WHERE id = $1 AND state = 'dead'", [odd])
            let succeeded = try await cluster.count("SELECT count(*) AS n FROM jobs WHERE state = 'succeeded'")
            return dead == 1 && succeeded == fine.count
        }
        let error = try await cluster.client.job(odd).lastError ?? ""
        #expect(error.contains("refused queue"), "\(error)")
        try await worker.stop()
        try await coordinator.stop()
        _ = try? await cluster.onBroker { connection, _ in try connection.deleteQueue(JobTopology.queueName("odd", namespace: cluster.name)) }
        await cluster.shutdown()
    }

    @Test func twoNamespacesOnOneDatabaseAndBrokerEachRunOnlyTheirOwnJobs() async throws {
        let cluster = try await TestCluster.make()
        struct Side {
            let namespace: String
            let postgres: PostgresClient
            let client: JobClient
            let worker: Worker
            let services: [RunningService]
        }
        var sides: [Side] = []
        for suffix in ["a", "b"] {
            let namespace = "\(cluster.name)_\(suffix)"
            var configuration = cluster.postgresConfiguration
            configuration.sessionSettings[ClusterSettings.namespaceSetting] = namespace
            let postgres = PostgresClient(configuration: configuration, maxConnections: 3, logger: cluster.logger)
            let registry = JobRegistry.withBuiltins()
            let worker = Worker(amqp: cluster.amqp, postgres: postgres, registry: registry,
                                settings: WorkerSettings(queues: registry.queues, concurrency: 8, prefetch: 64,
                                                         heartbeatInterval: Double(TestCluster.heartbeatSeconds), namespace: namespace),
                                logger: cluster.logger)
            let coordinator = Coordinator(postgres: configuration, amqp: cluster.amqp, namespace: namespace,
                                          settings: CoordinatorSettings(tick: 0.2), logger: cluster.logger)
            sides.append(Side(namespace: namespace, postgres: postgres, client: JobClient(postgres: postgres), worker: worker,
                              services: [RunningService(worker, logger: cluster.logger), RunningService(coordinator, logger: cluster.logger)]))
        }
        var batches: [[UUID]] = []
        for side in sides {
            let production = try await side.client.createProduction(name: "batch")
            batches.append(try await side.client.enqueue((0..<300).map { _ in
                try JobRequest(SleepJob(seconds: 0.001), options: JobOptions(productionID: production))
            }))
        }
        for (side, ids) in zip(sides, batches) {
            try await cluster.wait(timeout: 120, for: "namespace \(side.namespace)'s jobs to succeed") {
                try await side.postgres.query("SELECT count(*) AS n FROM jobs WHERE id = ANY($1::uuid[]) AND state = 'succeeded'", [ids])
                    .first?.int("n") == ids.count
            }
        }
        // Every job ran on its own namespace's worker; the test cluster's own session, in a third
        // namespace, sees no row of either.
        #expect(try await cluster.count("SELECT count(*) AS n FROM jobs") == 0)
        for (side, ids) in zip(sides, batches) {
            let workers = try await side.postgres.query("SELECT DISTINCT worker_id FROM jobs WHERE id = ANY($1::uuid[])", [ids])
                .compactMap { $0.string("worker_id") }
            #expect(workers == [side.worker.identity.id], "namespace \(side.namespace) ran on \(workers)")
            #expect(try await side.postgres.query("SELECT count(*) AS n FROM jobs").first?.int("n") == ids.count)
            // The coordinator completes the production after its last job, on its next tick.
            try await cluster.wait(timeout: 60, for: "namespace \(side.namespace)'s production to complete") {
                try await side.postgres.query("SELECT count(*) AS n FROM productions WHERE state = 'completed'").first?.int("n") == 1
            }
        }
        // Cancel and lookups do not reach across: namespace b cannot see a's jobs.
        await #expect(throws: (any Error).self) { _ = try await sides[1].client.job(batches[0][0]) }
        for side in sides {
            for service in side.services { try await service.stop() }
            await side.postgres.shutdown()
        }
        let amqp = cluster.amqp
        let queues = sides.flatMap { side in JobRegistry.withBuiltins().queues.map { JobTopology.queueName($0, namespace: side.namespace) } }
        _ = try? await BlockingWork.run {
            let connection = try AMQPConnection.connect(amqp)
            defer { connection.close() }
            for queue in queues { _ = try? connection.deleteQueue(queue) }
        }
        await cluster.shutdown()
    }

    @Test func aProductionTheCoordinatorCannotAdvanceIsFinishedWithItsReasonAndOthersGoOn() async throws {
        let cluster = try await TestCluster.make()
        let stuck = UUID()
        _ = try await cluster.postgres.withConnection { connection in
            try JobStore.createProduction(id: stuck, name: "from a build that is gone", plan: "no-such-plan", stage: "first",
                                          parameters: Data("{}".utf8), on: connection)
        }
        let coordinator = cluster.startCoordinator()
        let worker = cluster.startWorker()
        let batch = try await cluster.client.createProduction(name: "batch")
        _ = try await cluster.client.enqueue(NoopJob(), options: JobOptions(productionID: batch))
        try await cluster.wait(for: "both productions to finish") {
            try await cluster.count("SELECT count(*) AS n FROM productions WHERE state <> 'running'") == 2
        }
        let row = try #require(try await cluster.postgres.query("SELECT state, finish_reason FROM productions WHERE id = $1", [stuck]).first)
        #expect(row.string("state") == "completed_with_failures")
        #expect(row.string("finish_reason")?.contains("no-such-plan") == true)
        try await worker.stop()
        try await coordinator.stop()
        await cluster.shutdown()
    }
}
