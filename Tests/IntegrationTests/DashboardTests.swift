import Dispatch
import Foundation
import RepartoRuntime
import Logging
import Operations
import Postgres
import Synchronization
import RepartoTestSupport
import Testing

/// Where Debian's chromium is, if installed.
private let chromiumPath: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
    .first { FileManager.default.isExecutableFile(atPath: $0) }

/// On CI, and under `scripts/test` (`REPARTO_TEST_REQUIRE_ALL=1`), the browser test runs even
/// without chromium, and fails. As root chromium runs with `--no-sandbox` (below).
private let runsBrowserTest = chromiumPath != nil || ProcessInfo.processInfo.environment["CI"] == "true"
    || ProcessInfo.processInfo.environment["REPARTO_TEST_REQUIRE_ALL"] == "1"

@Suite("Dashboard: ops.* views as the reparto_dashboard role, JSON API, rendered page", .timeLimit(.minutes(4)))
struct DashboardTests {
    struct ChromiumMissing: Error, CustomStringConvertible {
        var description: String { "chromium is not installed (apt-get install -y chromium; scripts/services up installs it)" }
    }

    /// A cluster with finished, failed, dead and queued work, a production half done, and workers
    /// alive, stale and stopped; nothing changes it afterwards (no worker or relay runs).
    private func populatedCluster() async throws -> (TestCluster, production: UUID) {
        let cluster = try await TestCluster.make()
        let production = try await cluster.client.createProduction(name: "dashboard <test> & \"quotes\"")
        try await cluster.client.setLimit(LimitSpec(name: "provider:<test>", rate: 2, burst: 4, concurrency: 3))
        try await cluster.client.pause(PauseTarget(.queue, "archive"))
        let worker = cluster.startWorker(concurrency: 4)
        _ = try await cluster.client.enqueue((0..<5).map { _ in try JobRequest(NoopJob()) })
        _ = try await cluster.client.enqueue((0..<4).map { _ in try JobRequest(NoopJob(), options: JobOptions(productionID: production)) })
        _ = try await cluster.client.enqueue((0..<2).map { _ in
            try JobRequest(FailJob(message: "boom <b>not bold</b>", permanent: true), options: JobOptions(productionID: production))
        })
        _ = try await cluster.client.enqueue([try JobRequest(SleepJob(seconds: 0.01), options: JobOptions(productionID: production))])
        try await cluster.wait(for: "the first jobs to finish") {
            try await cluster.count("SELECT count(*) AS n FROM jobs WHERE state IN ('succeeded', 'dead')") == 12
        }
        try await worker.stop()
        // Queued work nobody runs (no relay is left), and workers in every state.
        _ = try await cluster.client.enqueue((0..<3).map { _ in try JobRequest(SleepJob(seconds: 1), options: JobOptions(productionID: production)) })
        _ = try await cluster.client.enqueue([try JobRequest(FailJob(message: "later"))])
        _ = try await cluster.postgres.query("""
            INSERT INTO workers (id, host, pid, queues, concurrency, heartbeat_interval_ms, heartbeat_at) VALUES
                ('ghost', 'ghost-host', 1, '{default}', 2, 1000, now() - interval '1 hour'),
                ('steady', 'steady-host', 2, '{default,parse}', 8, 3600000, now())
            """)
        // The usage ledger: two text calls and a reuse, a speech line, and a call older than the
        // panel's 24 hours.
        _ = try await cluster.postgres.query("""
            INSERT INTO generation_usage (job_id, provider, model, capability, input_tokens, output_tokens, characters,
                                          images, audio_seconds, reused, created_at) VALUES
                (gen_random_uuid(), 'open<ai>', 'gpt-x', 'text', 120, 30, 400, 0, 0, false, now()),
                (gen_random_uuid(), 'open<ai>', 'gpt-x', 'text', 80, 20, 300, 0, 0, false, now()),
                (gen_random_uuid(), 'open<ai>', 'gpt-x', 'text', 0, 0, 0, 0, 0, true, now()),
                (gen_random_uuid(), 'espeak-ng', 'en-us', 'speech', 0, 0, 12, 0, 1.5, false, now()),
                (gen_random_uuid(), 'open<ai>', 'gpt-x', 'text', 999, 999, 999, 0, 0, false, now() - interval '25 hours')
            """)
        return (cluster, production)
    }

    /// A login role that is a member of `reparto_dashboard` and nothing else: it has exactly the
    /// dashboard role's grants. (Roles are cluster-wide, so the test does not set a password on
    /// the shared `reparto_dashboard` role itself, which concurrent test runs would race on.)
    private func dashboardLogin(_ cluster: TestCluster) async throws -> (PostgresConfiguration, drop: @Sendable () async -> Void) {
        let role = "\(cluster.name)_dash"
        let password = UUID().uuidString
        let admin = PostgresClient(configuration: cluster.adminConfiguration, maxConnections: 1)
        // The role name is built from hex digits and the password is a UUID: safe to inline.
        _ = try await admin.query("CREATE ROLE \(role) LOGIN NOINHERIT PASSWORD '\(password)'")
        _ = try await admin.query("ALTER ROLE \(role) INHERIT")
        _ = try await admin.query("GRANT reparto_dashboard TO \(role)")
        await admin.shutdown()
        var configuration = cluster.postgresConfiguration
        configuration.user = role
        configuration.password = password
        let adminConfiguration = cluster.adminConfiguration
        return (configuration, {
            let admin = PostgresClient(configuration: adminConfiguration, maxConnections: 1)
            _ = try? await admin.query("DROP ROLE IF EXISTS \(role)")
            await admin.shutdown()
        })
    }

    /// The dashboard server on a free port.
    private func startDashboard(_ postgres: PostgresClient, logger: Logger) async throws -> (RunningService, port: Int) {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = DashboardServer.buildApplication(host: "127.0.0.1", port: 0, postgres: postgres, logger: logger,
                                                   onListening: { continuation.yield($0) })
        let server = RunningService(app, logger: logger)
        var iterator = ports.makeAsyncIterator()
        return (server, try #require(await iterator.next()))
    }

    /// Ground truth, straight from the jobs table (not the views).
    private struct Truth {
        var byKind: [String: [String: Int]] = [:]
        var totals: [String: Int] = [:]
        var failuresLastDay = 0
        var finishedLastHour: (succeeded: Int, failed: Int) = (0, 0)
    }

    private func truth(_ cluster: TestCluster) async throws -> Truth {
        var truth = Truth()
        for row in try await cluster.postgres.query("SELECT kind, state, count(*) AS n FROM jobs GROUP BY kind, state") {
            let kind = row.string("kind") ?? "", state = row.string("state") ?? "", n = row.int("n") ?? 0
            truth.byKind[kind, default: [:]][state] = n
            truth.totals[state, default: 0] += n
        }
        truth.failuresLastDay = try await cluster.count(
            "SELECT count(*) AS n FROM jobs WHERE state IN ('failed', 'dead') AND finished_at > now() - interval '1 day'")
        truth.finishedLastHour = (
            try await cluster.count("SELECT count(*) AS n FROM jobs WHERE state = 'succeeded' AND finished_at > now() - interval '1 hour'"),
            try await cluster.count("SELECT count(*) AS n FROM jobs WHERE state IN ('failed', 'dead') AND finished_at > now() - interval '1 hour'"))
        return truth
    }

    /// README: `reparto dashboard` logs in with `REPARTO_DASHBOARD_DATABASE_URL` and
    /// `REPARTO_DASHBOARD_DATABASE_PASSWORD`. The cluster's own URL is made unusable here, so the
    /// page can only be served through the dashboard's login.
    @Test func theDashboardCommandUsesItsOwnDatabaseLogin() async throws {
        let (cluster, _) = try await populatedCluster()
        let (configuration, dropRole) = try await dashboardLogin(cluster)
        var environment = try cluster.processEnvironment()
        environment["REPARTO_DATABASE_URL"] = "postgres://nobody@127.0.0.1:1/nowhere"
        environment["REPARTO_DASHBOARD_DATABASE_URL"] =
            "postgres://\(configuration.user)@\(configuration.host):\(configuration.port)/\(configuration.database)"
        environment["REPARTO_DASHBOARD_DATABASE_PASSWORD"] = configuration.password
        environment["REPARTO_LOG_FORMAT"] = "json"
        let dashboard = try CapturedProcess(["dashboard", "--port", "0", "--host", "127.0.0.1"], environment: environment)
        let listening = try await dashboard.waitForLine("the dashboard to listen") { line -> [String: String]? in
            guard let object = jsonObject(line), object["message"] as? String == "dashboard listening" else { return nil }
            return object["metadata"] as? [String: String]
        }
        #expect(listening["user"] == configuration.user, "the dashboard's own role, not the cluster's user")
        let port = try #require(listening["port"].flatMap(Int.init))
        let overview = try await httpGet("http://127.0.0.1:\(port)" + OperationsEndpoints.apiPrefix + "/overview")
        #expect(overview.status == 200, "\(overview.body.prefix(500))")
        let snapshot = try DashboardSnapshot.decoder.decode(DashboardSnapshot.self, from: Data(overview.body.utf8))
        #expect(!snapshot.queues.isEmpty, "the views answered through the dashboard login")
        #expect(!dashboard.stdoutLines.joined().contains(configuration.password ?? "-"), "the password is never printed")
        #expect(!dashboard.stderrLines.joined().contains(configuration.password ?? "-"))
        #expect(await dashboard.terminate() == 0)
        await dropRole()
        await cluster.shutdown()
    }

    @Test func everyQueryWorksAsTheDashboardRoleAndTheAPIMatchesTheDatabase() async throws {
        let (cluster, production) = try await populatedCluster()
        let (configuration, dropRole) = try await dashboardLogin(cluster)
        let postgres = PostgresClient(configuration: configuration, maxConnections: 2, logger: cluster.logger)

        // The role really is restricted: the base tables are off limits, the views are not.
        await #expect(throws: PostgresError.self) { try await postgres.query("SELECT count(*) FROM jobs") }
        let direct = try await postgres.withConnection { try DashboardQueries.snapshot(on: $0) }
        #expect(!direct.queues.isEmpty)

        let (server, port) = try await startDashboard(postgres, logger: cluster.logger)
        let base = "http://127.0.0.1:\(port)"
        #expect(try await httpGet(base + OperationsEndpoints.healthPath).status == 200)
        #expect(try await httpGet(base + OperationsEndpoints.readyPath) == (200, "ready\n"))
        #expect(try await httpGet(base + OperationsEndpoints.metricsPath).status == 200)
        let page = try await httpGet(base + "/")
        #expect(page.status == 200 && page.body.contains("<svg id=\"throughput-chart\""))
        #expect(!page.body.contains("http://") && !page.body.contains("https://"), "the page loads nothing from elsewhere")

        let overview = try await httpGet(base + OperationsEndpoints.apiPrefix + "/overview")
        #expect(overview.status == 200)
        let snapshot = try DashboardSnapshot.decoder.decode(DashboardSnapshot.self, from: Data(overview.body.utf8))
        let truth = try await truth(cluster)
        for row in snapshot.queues {
            let counts = truth.byKind[row.kind] ?? [:]
            #expect(row.queued == counts["queued"] ?? 0, "queued \(row.kind)")
            #expect(row.running == counts["running"] ?? 0, "running \(row.kind)")
            #expect(row.succeeded == counts["succeeded"] ?? 0, "succeeded \(row.kind)")
            #expect(row.failed == counts["failed"] ?? 0, "failed \(row.kind)")
            #expect(row.dead == counts["dead"] ?? 0, "dead \(row.kind)")
        }
        #expect(Set(snapshot.queues.map(\.kind)) == Set(truth.byKind.keys))
        #expect(snapshot.totals.queued == truth.totals["queued"] ?? 0)
        #expect(snapshot.totals.dead == 2)
        let progress = try #require(snapshot.productions.first { $0.id == production })
        #expect((progress.total, progress.done, progress.queued, progress.failed) == (10, 7, 3, 2))
        #expect(progress.state == "running" && progress.eta != nil)
        #expect((snapshot.workerCounts.alive, snapshot.workerCounts.stale, snapshot.workerCounts.stopped) == (1, 1, 1))
        #expect(snapshot.failures.count == truth.failuresLastDay)
        #expect(snapshot.failures.allSatisfy { $0.lastError?.contains("boom <b>not bold</b>") == true })
        #expect(snapshot.throughput.map(\.succeeded).reduce(0, +) == truth.finishedLastHour.succeeded)
        #expect(snapshot.throughput.map(\.failed).reduce(0, +) == truth.finishedLastHour.failed)
        #expect(snapshot.limits.map(\.name) == ["provider:<test>"])
        let limit = try #require(snapshot.limits.first)
        #expect(limit.concurrency == 3 && limit.burst == 4 && limit.running == 0 && limit.tokens == 4)
        #expect(snapshot.pauses.map { "\($0.scope):\($0.name)" } == ["queue:archive"])
        #expect(snapshot.usage.map { "\($0.provider)/\($0.model)/\($0.capability)" } == ["espeak-ng/en-us/speech", "open<ai>/gpt-x/text"])
        let text = try #require(snapshot.usage.first { $0.capability == "text" })
        #expect((text.calls, text.reused, text.inputTokens, text.outputTokens, text.characters) == (2, 1, 200, 50, 700),
                "the last 24 hours only")
        let speech = try #require(snapshot.usage.first { $0.capability == "speech" })
        #expect(speech.audioSeconds == 1.5 && speech.calls == 1 && speech.lastUsedAt != nil)

        // Each separate endpoint answers with its part.
        for (path, key) in [("queues", "totals"), ("productions", "productions"), ("workers", "worker_counts"),
                            ("failures", "failures"), ("throughput", "throughput")] {
            let reply = try await httpGet(base + OperationsEndpoints.apiPrefix + "/" + path)
            #expect(reply.status == 200)
            #expect(jsonObject(reply.body)?[key] != nil, "/api/\(path) has \(key)")
        }
        // Lists are paged: a page is the same slice of the whole list; a bad page is one line and a 400.
        let failuresPath = base + OperationsEndpoints.apiPrefix + "/failures"
        let all = (jsonObject(try await httpGet(failuresPath).body)?["failures"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(all.count >= 2)
        let second = (jsonObject(try await httpGet(failuresPath + "?limit=1&offset=1").body)?["failures"] as? [[String: Any]] ?? [])
            .compactMap { $0["id"] as? String }
        #expect(second == [all[1]])
        for bad in ["?limit=0", "?limit=501", "?offset=-1", "?limit=abc", "?limit=99999999999999999999"] {
            let reply = try await httpGet(failuresPath + bad)
            #expect(reply.status == 400 && reply.body.contains("must be a whole number"), "\(bad)")
        }

        try await server.stop()
        await postgres.shutdown()
        await dropRole()
        await cluster.shutdown()
    }

    @Test(.enabled(if: runsBrowserTest, "chromium is not installed (CI=true or REPARTO_TEST_REQUIRE_ALL=1 makes this a failure)"))
    func theRenderedPageShowsWhatTheDatabaseHolds() async throws {
        guard let chromium = chromiumPath else { throw ChromiumMissing() }
        let (cluster, production) = try await populatedCluster()
        let (server, port) = try await startDashboard(cluster.postgres, logger: cluster.logger)
        let url = "http://127.0.0.1:\(port)/"
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-chromium-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: profile) }
        let common = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                      "--user-data-dir=\(profile)", "--virtual-time-budget=8000"]

        let dom = try await runChromium(chromium, common + ["--dump-dom", url])
        #expect(dom.contains("<body data-state=\"ready\""), "the page did not load its data: \(dom.prefix(3000))")
        let truth = try await truth(cluster)
        for (kind, counts) in truth.byKind {
            for field in ["queued", "running", "failed", "dead", "succeeded"] {
                #expect(Self.value(in: dom, after: "data-kind=\"\(kind)\" data-field=\"\(field)\">") == "\(counts[field] ?? 0)",
                        "\(kind) \(field)")
            }
        }
        for field in ["queued", "running", "succeeded", "failed", "dead"] {
            #expect(Self.value(in: dom, after: "id=\"total-\(field)\">") == "\(truth.totals[field] ?? 0)", "total \(field)")
        }
        let workers = try await cluster.postgres.query("SELECT status, count(*) AS n FROM ops.workers GROUP BY status")
        for status in ["alive", "stale", "stopped"] {
            let expected = workers.first { $0.string("status") == status }?.int("n") ?? 0
            #expect(Self.value(in: dom, after: "id=\"workers-\(status)\">") == "\(expected)", "workers \(status)")
        }
        #expect(Self.value(in: dom, after: "id=\"failures-count\">") == "\(truth.failuresLastDay)")
        #expect(Self.value(in: dom, after: "id=\"throughput-succeeded\">") == "\(truth.finishedLastHour.succeeded)")
        #expect(Self.value(in: dom, after: "id=\"throughput-failed\">") == "\(truth.finishedLastHour.failed)")
        let progress = try #require(try await cluster.postgres.query(
            "SELECT done, total, percent::float8 AS percent FROM ops.production_progress WHERE id = $1", [production]).first)
        let id = production.uuidString
        #expect(Self.value(in: dom, after: "data-production=\"\(id)\" data-field=\"done\">") == "\(progress.int("done") ?? -1)")
        #expect(Self.value(in: dom, after: "data-production=\"\(id)\" data-field=\"total\">") == "\(progress.int("total") ?? -1)")
        #expect(Self.value(in: dom, after: "data-production=\"\(id)\" data-field=\"percent\">").flatMap(Double.init) == progress.double("percent"))
        #expect(Self.value(in: dom, after: "data-production=\"\(id)\" data-field=\"eta\">")?.hasPrefix("ETA") == true)
        #expect(dom.contains("boom &lt;b&gt;not bold&lt;/b&gt;"), "failure messages are shown, escaped")
        #expect(dom.contains("dashboard &lt;test&gt; &amp; \"quotes\""), "production names are escaped")
        #expect(dom.contains("data-succeeded="), "the throughput chart has bars")
        #expect(Self.value(in: dom, after: "data-limit=\"provider:&lt;test&gt;\" data-field=\"running\">") == "0", "limits are shown, escaped")
        #expect(dom.contains("data-paused=\"queue:archive\""), "paused queues are shown")
        #expect(Self.value(in: dom, after: "data-usage=\"open&lt;ai&gt;/gpt-x/text\" data-field=\"input_tokens\">") == "200",
                "the usage ledger is shown, escaped")
        #expect(Self.value(in: dom, after: "data-usage=\"espeak-ng/en-us/speech\" data-field=\"audio_seconds\">") == "1.50")

        // A screenshot, kept as a test artifact.
        let artifacts = TestEnvironment.repositoryRoot.appendingPathComponent("test-artifacts")
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        let screenshot = artifacts.appendingPathComponent("dashboard.png")
        try? FileManager.default.removeItem(at: screenshot)
        _ = try await runChromium(chromium, common + ["--screenshot=\(screenshot.path)", "--window-size=1280,900", "--hide-scrollbars", url])
        let png = try Data(contentsOf: screenshot)
        #expect(png.count > 10_000 && png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG screenshot")

        try await server.stop()
        await cluster.shutdown()
    }

    /// The text between `marker` and the next `<`.
    private static func value(in dom: String, after marker: String) -> String? {
        guard let range = dom.range(of: marker) else { return nil }
        return String(dom[range.upperBound...].prefix { $0 != "<" })
    }

    struct ChromiumFailed: Error, CustomStringConvertible {
        let status: Int32
        let stderr: String
        var description: String { "chromium exited with \(status): \(stderr.suffix(2000))" }
    }

    /// Runs chromium to completion (killed after 90 s, with what it started) on its own threads;
    /// returns its stdout.
    private func runChromium(_ path: String, _ arguments: [String]) async throws -> String {
        let output = try await runSubprocess(URL(fileURLWithPath: path), arguments, timeout: 90)
        guard output.status == 0 else { throw ChromiumFailed(status: output.status, stderr: output.stderr) }
        return output.stdout
    }
}

/// Data handed from a reader thread to the thread that waits for it (`waitForValue` after `set`).
private final class LockedData: Sendable {
    private let data = Mutex(Data())
    private let ready = DispatchSemaphore(value: 0)
    func set(_ value: Data) {
        data.withLock { $0 = value }
        ready.signal()
    }
    func waitForValue() -> Data {
        ready.wait()
        return data.withLock { $0 }
    }
}
