import Composition
import Foundation
import RepartoRuntime
import RepartoTestSupport
import Testing

/// A job that runs until the test releases it: holds a worker's only slot.
struct HoldJob: JobParameters {
    static let kind = "test.hold"
}

/// Releases held jobs.
actor Gate {
    private var open = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    func wait() async {
        if open { return }
        await withCheckedContinuation { waiters.append($0) }
    }
    func release() {
        open = true
        for waiter in waiters { waiter.resume() }
        waiters.removeAll()
    }
}

/// The README's documented commands, each run as `reparto` and checked against what it says.
@Suite("reparto CLI: documented behaviour", .serialized, .timeLimit(.minutes(3)))
struct CLIDocumentedTests {
    static let script = "INT. HOUSE - DAY\n\nBOB\nHi.\n"

    static func temporaryFile(_ name: String, _ text: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    /// The elements of `reparto parse --format json` output as "type:text".
    static func elements(_ json: String) throws -> [String] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let elements = try #require(object["elements"] as? [[String: Any]])
        return elements.map { "\($0["type"] as? String ?? "?"):\($0["text"] as? String ?? "?")" }
    }

    /// `reparto parse FILE [--format json|fountain|fdx]`, `-` for stdin, one-line errors.
    @Test func parseFormatsStdinAndOneLineErrors() async throws {
        let file = try Self.temporaryFile("t.fountain", Self.script)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let environment = ProcessInfo.processInfo.environment
        // Worked out by hand: a scene heading, a cue, its line.
        let expected = ["sceneHeading:INT. HOUSE - DAY", "character:BOB", "dialogue:Hi."]

        let json = try await RepartoProcess.run(["parse", file.path], environment: environment)
        #expect(json.status == 0, "\(json.stderr)")
        #expect(try Self.elements(json.stdout) == expected, "JSON is the default")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["format"] as? String == "fountain")

        let fountain = try await RepartoProcess.run(["parse", file.path, "--format", "fountain"], environment: environment)
        #expect(fountain.status == 0)
        #expect(fountain.stdout.contains("INT. HOUSE - DAY\n\nBOB\nHi."), "\(fountain.stdout)")

        let fdx = try await RepartoProcess.run(["parse", file.path, "--format", "fdx"], environment: environment)
        #expect(fdx.status == 0)
        #expect(fdx.stdout.hasPrefix("<?xml"))
        #expect(fdx.stdout.contains("<Paragraph Type=\"Scene Heading\"><Text>INT. HOUSE - DAY</Text></Paragraph>"))
        #expect(fdx.stdout.contains("<Paragraph Type=\"Character\"><Text>BOB</Text></Paragraph>"))

        let stdin = try await RepartoProcess.run(["parse", "-"], environment: environment, stdin: Data(Self.script.utf8))
        #expect(stdin.status == 0, "\(stdin.stderr)")
        #expect(try Self.elements(stdin.stdout) == expected)

        // Failures: exactly one line on stderr, `Error: …`, non-zero status.
        let missing = try await RepartoProcess.run(["parse", file.path + ".missing"], environment: environment)
        let binary = try await RepartoProcess.run(["parse", "-"], environment: environment, stdin: Data([0x49, 0x4E, 0x54, 0x00, 0x01, 0x02]))
        for (output, mention) in [(missing, ".missing"), (binary, "binary")] {
            #expect(output.status != 0)
            let lines = output.stderr.split(separator: "\n")
            #expect(lines.count == 1, "stderr: \(output.stderr)")
            #expect(lines.first?.hasPrefix("Error: ") == true && lines.first?.contains(mention) == true, "stderr: \(output.stderr)")
            #expect(output.stdout.isEmpty)
        }
    }

    /// `reparto status` and `status --json` on a cluster that did some work.
    @Test func statusAndStatusJSONShowWhatRan() async throws {
        let cluster = try await TestCluster.make()
        let worker = cluster.startWorker()
        let ids = try await cluster.client.enqueue((0..<3).map { _ in try JobRequest(NoopJob()) })
        for id in ids { _ = try await cluster.client.awaitJob(id, timeout: 60) }
        try await worker.stop()
        let environment = try cluster.processEnvironment()

        let text = try await RepartoProcess.run(["status"], environment: environment)
        #expect(text.status == 0, "\(text.stderr)")
        for view in ["queue_overview", "production_progress", "workers", "recent_failures", "throughput"] {
            #expect(text.stdout.contains("== \(view) =="), "\(view) missing: \(text.stdout)")
        }
        #expect(text.stdout.contains("noop"))

        let json = try await RepartoProcess.run(["status", "--json"], environment: environment)
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        // The runtime's views, then each production type's own.
        #expect(Set(object.keys) == Set(Kinds.opsViews.map(\.name)))
        #expect(Set(object.keys).isSuperset(of: ["queue_overview", "production_progress", "workers", "recent_failures", "throughput",
                                                  "limits", "pauses", "schedules", "book_imports"]))
        let queues = try #require(object["queue_overview"] as? [[String: Any]])
        let noop = try #require(queues.first { $0["kind"] as? String == NoopJob.kind })
        #expect((noop["succeeded"] as? NSNumber)?.intValue == 3, "\(noop)")
        let workers = try #require(object["workers"] as? [[String: Any]])
        #expect(workers.count == 1, "the stopped worker is listed")
        await cluster.shutdown()
    }

    /// `reparto watch ID` follows a production until it ends and says how it ended.
    @Test func watchFollowsAProductionToItsEnd() async throws {
        let cluster = try await TestCluster.make()
        let environment = try cluster.processEnvironment()
        let enqueued = try await RepartoProcess.run(
            ["enqueue", "sleep", "--params", #"{"seconds": 0.2}"#, "--count", "4", "--production", "watched"], environment: environment)
        #expect(enqueued.status == 0, "\(enqueued.stderr)")
        let production = try #require(enqueued.stdout.split(separator: "\n").first { $0.hasPrefix("production ") }?
            .dropFirst("production ".count))
        // watch starts before anything runs, so it must wait for the workers.
        async let watched = RepartoProcess.run(["watch", "watched", "--timeout", "120"], environment: environment)
        let worker = cluster.startWorker(concurrency: 2)
        let coordinator = cluster.startCoordinator()
        let output = try await watched
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.split(separator: "\n").last == "production \(production) completed: 4 succeeded, 0 failed, 0 cancelled")
        #expect(try await cluster.count("SELECT count(*) AS n FROM jobs WHERE state = 'succeeded'") == 4)
        try await worker.stop()
        try await coordinator.stop()
        await cluster.shutdown()
    }

    /// `--delay S` keeps a job from running for S seconds: a job enqueued after it, without a
    /// delay, runs while it stays queued, and its run_after is S seconds after its creation.
    @Test func enqueueDelayHoldsTheJobBack() async throws {
        let cluster = try await TestCluster.make()
        let environment = try cluster.processEnvironment()
        let delayed = try await RepartoProcess.run(["enqueue", "noop", "--params", "{}", "--delay", "600"], environment: environment)
        #expect(delayed.status == 0, "\(delayed.stderr)")
        let delayedID = try #require(delayed.stdout.split(separator: "\n").first.map(String.init))
        let prompt = try await RepartoProcess.run(["enqueue", "noop", "--params", "{}"], environment: environment)
        let promptLine = try #require(prompt.stdout.split(separator: "\n").first.map(String.init))
        let promptID = try #require(UUID(uuidString: promptLine))
        let worker = cluster.startWorker()
        let done = try await cluster.client.awaitJob(promptID, timeout: 60)
        #expect(done.state == .succeeded)
        let row = try #require(try await cluster.postgres.query(
            "SELECT state, attempts, extract(epoch FROM run_after - created_at)::float8 AS delay FROM jobs WHERE id = $1::uuid",
            [delayedID]).first)
        #expect(row.string("state") == "queued")
        #expect(row.int("attempts") == 0)
        // The CLI adds the delay to its clock before the insert: 600 s less the time between the two.
        let delay = try #require(row.string("delay").flatMap(Double.init))
        #expect(delay > 590 && delay <= 600.5, "run_after is \(delay) s after creation")
        try await worker.stop()
        await cluster.shutdown()
    }

    /// `--priority high` jumps the queue. A held job fills the worker's only slot (prefetch 1)
    /// while five low-priority jobs and then one high-priority job are published; once the slot
    /// frees, the broker hands over the high one first.
    @Test func priorityChangesTheOrder() async throws {
        let cluster = try await TestCluster.make()
        let environment = try cluster.processEnvironment()
        let gate = Gate()
        let registry = JobRegistry.withBuiltins()
        registry.register(HoldJob.self) { _, _ in await gate.wait() }
        let worker = cluster.startWorker(registry: registry, concurrency: 1, prefetch: 1)
        let held = try await cluster.client.enqueue(HoldJob())
        try await cluster.wait(for: "the held job to run") {
            try await cluster.client.job(held).state == .running
        }
        let low = try await RepartoProcess.run(["enqueue", "noop", "--params", "{}", "--count", "5", "--priority", "low"],
                                               environment: environment)
        #expect(low.status == 0, "\(low.stderr)")
        let high = try await RepartoProcess.run(["enqueue", "noop", "--params", "{}", "--priority", "high"], environment: environment)
        let highID = try #require(high.stdout.split(separator: "\n").first.map(String.init))
        #expect(try await cluster.count("SELECT count(*) AS n FROM jobs WHERE priority = 8") == 1)
        #expect(try await cluster.count("SELECT count(*) AS n FROM jobs WHERE priority = 0") == 5)
        // All six are in the broker's queue before the slot frees.
        try await cluster.wait(for: "the six jobs to be published") {
            try await cluster.count("SELECT count(*) AS n FROM jobs WHERE kind = 'noop' AND NOT publish_pending") == 6
        }
        await gate.release()
        try await cluster.wait(for: "every job to finish") {
            try await cluster.count("SELECT count(*) AS n FROM jobs WHERE state = 'succeeded'") == 7
        }
        let order = try await cluster.postgres.query(
            "SELECT id::text AS id FROM jobs WHERE kind = 'noop' ORDER BY started_at, id")
        #expect(order.first?.string("id") == highID, "the high-priority job ran first of the six")
        try await worker.stop()
        await cluster.shutdown()
    }
}
