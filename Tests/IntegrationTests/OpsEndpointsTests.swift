import AMQP
import Foundation
import RepartoRuntime
import Logging
import Operations
import RepartoTestSupport
import Testing

@Suite("Operations endpoints of real workers and coordinators", .timeLimit(.minutes(3)))
struct OpsEndpointsTests {
    /// The cluster's environment with the passwords moved from the URLs into `_FILE` secrets.
    private func environmentWithPasswordFiles(_ cluster: TestCluster) throws -> (environment: [String: String], passwords: [String], files: [String]) {
        var environment = try cluster.processEnvironment()
        for name in ["REPARTO_DATABASE_PASSWORD", "REPARTO_AMQP_PASSWORD", "REPARTO_DATABASE_PASSWORD_FILE",
                     "REPARTO_AMQP_PASSWORD_FILE", "REPARTO_METRICS_PORT", "REPARTO_LOG_FORMAT"] {
            environment[name] = nil
        }
        var passwords: [String] = [], files: [String] = []
        for (urlVariable, fileVariable) in [("REPARTO_DATABASE_URL", "REPARTO_DATABASE_PASSWORD_FILE"),
                                            ("REPARTO_AMQP_URL", "REPARTO_AMQP_PASSWORD_FILE")] {
            let (url, password) = withoutPassword(try #require(environment[urlVariable]))
            environment[urlVariable] = url
            if let password {
                let file = try secretFile(password)
                environment[fileVariable] = file
                passwords.append(password)
                files.append(file)
            }
        }
        return (environment, passwords, files)
    }

    @Test func workerServesMetricsHealthAndReadinessAndLogsJSONWithoutSecrets() async throws {
        let cluster = try await TestCluster.make()
        let (baseEnvironment, passwords, files) = try environmentWithPasswordFiles(cluster)
        defer { for file in files { try? FileManager.default.removeItem(atPath: file) } }
        #expect(passwords.count == 2, "the test services' URLs carry passwords")
        var environment = baseEnvironment
        environment["REPARTO_METRICS_PORT"] = "0"
        environment["REPARTO_LOG_FORMAT"] = "json"

        let worker = try CapturedProcess(TestCluster.workerArguments(["--concurrency", "4", "--metrics-host", "127.0.0.1"]),
                                         environment: environment)
        let port = try await worker.waitForLine("the metrics server to listen") { listeningPort($0, message: "metrics server listening") }
        let base = "http://127.0.0.1:\(port)"
        try await waitForHTTP(base + OperationsEndpoints.readyPath, "worker readiness") { status, _ in status == 200 }
        #expect(try await httpGet(base + OperationsEndpoints.healthPath).status == 200)

        let production = try await cluster.client.createProduction(name: "ops-metrics")
        _ = try await cluster.client.enqueue((0..<3).map { _ in try JobRequest(NoopJob()) })
        _ = try await cluster.client.enqueue((0..<2).map { _ in
            try JobRequest(FailJob(message: "deliberate", permanent: true), options: JobOptions(productionID: production))
        })
        try await cluster.wait(for: "jobs to finish") {
            try await cluster.count("SELECT count(*) AS n FROM jobs WHERE state IN ('succeeded', 'dead')") == 5
        }
        let exposition = try await waitForHTTP(base + OperationsEndpoints.metricsPath, "job metrics") { status, body in
            status == 200
                && metricValue(#"reparto_jobs_succeeded_total{kind="noop"}"#, in: body) == 3
                && metricValue(#"reparto_jobs_dead_total{kind="fail"}"#, in: body) == 2
        }
        #expect(metricValue(#"reparto_jobs_started_total{kind="noop"}"#, in: exposition) == 3)
        #expect(metricValue(#"reparto_jobs_started_total{kind="fail"}"#, in: exposition) == 2)
        #expect(metricValue(#"reparto_jobs_failed_total{kind="fail"}"#, in: exposition) == 2)
        #expect(metricValue(#"reparto_job_duration_seconds_count{kind="noop"}"#, in: exposition) == 3)
        #expect(exposition.contains("# TYPE reparto_job_duration_seconds histogram"))
        #expect(exposition.contains("# TYPE reparto_jobs_in_flight gauge"))
        #expect(metricValue(#"reparto_connection_up{component="amqp_consumer"}"#, in: exposition) == 1)
        #expect(metricValue(#"reparto_connection_up{component="worker_postgres"}"#, in: exposition) == 1)
        #expect(metricValue(#"reparto_connection_up{component="relay_postgres"}"#, in: exposition) == 1)
        #expect((metricValue("reparto_outbox_published_total", in: exposition) ?? 0) >= 5)

        let status = await worker.terminate()
        await cluster.shutdown()
        #expect(status == 0)

        // Every line is one JSON object with the required fields; job lines carry their ids.
        let lines = worker.stderrLines + worker.stdoutLines
        #expect(!lines.isEmpty)
        for line in lines where !line.isEmpty {
            let object = try #require(jsonObject(line), "not a JSON log line: \(line)")
            for field in ["timestamp", "level", "label", "message", "metadata"] {
                #expect(object[field] != nil, "\(field) missing in \(line)")
            }
        }
        let failures = lines.compactMap(jsonObject).filter { $0["message"] as? String == "job attempt failed" }
        #expect(failures.count == 2)
        for failure in failures {
            let metadata = try #require(failure["metadata"] as? [String: Any])
            #expect(metadata["job_id"] != nil)
            #expect(metadata["production_id"] as? String == production.uuidString)
        }
        // The secrets from the env file never appear.
        let output = lines.joined(separator: "\n")
        for password in passwords { #expect(!output.contains(password), "a password appeared in the worker's output") }
    }

    @Test func readinessIsFalseWhileTheBrokerIsUnreachable() async throws {
        let cluster = try await TestCluster.make()
        var broken = cluster.amqp
        broken.port = 1
        let worker = Worker(amqp: broken, postgres: cluster.postgres, registry: .withBuiltins(),
                            settings: WorkerSettings(queues: ["default"], heartbeatInterval: Double(TestCluster.heartbeatSeconds), drainTimeout: 1,
                                                     runsRelay: false, namespace: cluster.name),
                            logger: cluster.logger)
        let running = RunningService(worker, logger: cluster.logger)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = OperationsServer.buildApplication(host: "127.0.0.1", port: 0, readiness: { worker.health.status },
                                                    logger: cluster.logger, onListening: { continuation.yield($0) })
        let server = RunningService(app, logger: cluster.logger)
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        let url = "http://127.0.0.1:\(port)\(OperationsEndpoints.readyPath)"

        // PostgreSQL is reachable (the worker registers), RabbitMQ is not: 503 naming the broker.
        let body = try await waitForHTTP(url, "PostgreSQL up, RabbitMQ down") { status, body in
            status == 503 && !body.contains("PostgreSQL") && body.contains("RabbitMQ (consumer)")
        }
        #expect(body.hasPrefix("not ready: "))
        #expect(try await httpGet("http://127.0.0.1:\(port)\(OperationsEndpoints.healthPath)").status == 200)
        try await running.stop()
        try await server.stop()
        await cluster.shutdown()
    }

    @Test func coordinatorSamplesQueueLagAndOutboxBacklog() async throws {
        let cluster = try await TestCluster.make()
        try await cluster.client.setLimit(LimitSpec(name: "test:metrics", rate: 4, burst: 3))
        try await cluster.client.pause(PauseTarget(.queue, "archive"))
        var environment = try cluster.processEnvironment()
        environment["REPARTO_METRICS_PORT"] = nil
        let coordinator = try CapturedProcess(["coordinator", "--log-format", "json", "--metrics-port", "0",
                                               "--metrics-host", "127.0.0.1"], environment: environment)
        let port = try await coordinator.waitForLine("the metrics server to listen") { listeningPort($0, message: "metrics server listening") }
        let base = "http://127.0.0.1:\(port)"
        try await waitForHTTP(base + OperationsEndpoints.readyPath, "coordinator readiness") { status, _ in status == 200 }

        // No worker: the relay publishes the jobs, they stay queued and the default queue lags.
        _ = try await cluster.client.enqueue((0..<3).map { _ in try JobRequest(SleepJob(seconds: 0)) })
        let exposition = try await waitForHTTP(base + OperationsEndpoints.metricsPath, timeout: 30, "queue lag sample") { _, body in
            (metricValue(#"reparto_queue_lag_seconds{queue="default"}"#, in: body) ?? 0) > 0
                && metricValue("reparto_outbox_backlog", in: body) == 0
        }
        #expect(exposition.contains("# TYPE reparto_queue_lag_seconds gauge"))
        #expect(metricValue(#"reparto_connection_up{component="coordinator_postgres"}"#, in: exposition) == 1)
        #expect(metricValue(#"reparto_connection_up{component="relay_amqp"}"#, in: exposition) == 1)
        #expect((metricValue("reparto_outbox_published_total", in: exposition) ?? 0) >= 3)
        #expect(metricValue(#"reparto_limit_tokens{limit="test:metrics"}"#, in: exposition) == 3)
        #expect(metricValue(#"reparto_limit_running{limit="test:metrics"}"#, in: exposition) == 0)
        let paused = exposition.split(separator: "\n").filter { $0.hasPrefix("reparto_paused{") }
        #expect(paused.count == 1 && paused[0].contains(#"name="archive""#) && Double(paused[0].split(separator: " ").last ?? "") == 1,
                "\(paused)")
        let status = await coordinator.terminate()
        await cluster.shutdown()
        #expect(status == 0)
    }
}
