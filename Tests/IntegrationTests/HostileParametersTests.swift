import Foundation
import RepartoRuntime
import Testing

/// Issue 24, item 1: no parameter makes a handler trap. Every kind a `reparto worker` registers
/// gets hostile values (±1e308, negatives, NaN-like strings, empty and million-element arrays,
/// deep JSON, a 64 GiB sparse file); the worker process never exits, every hostile job ends
/// `dead` with its reason (or `succeeded` where the value is legitimately ignored), and a job
/// enqueued afterwards still runs.
@Suite("hostile parameters", .serialized, .timeLimit(.minutes(4)))
struct HostileParametersTests {
    /// One hostile job: its kind, its parameters, and a piece of the reason it must end with.
    struct Hostile: Sendable {
        var kind: String
        var json: String
        /// nil: `dead` with any recorded reason; "" : `succeeded` is fine too (the value is ignored).
        var reason: String?
    }

    static let uuid = "0191d5a4-0000-7000-8000-000000000001"
    /// A JSON array of a million `element`s.
    static func million(_ element: String) -> String {
        "[" + Array(repeating: element, count: 1_000_000).joined(separator: ",") + "]"
    }
    static let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)

    static let cases: [Hostile] = [
        Hostile(kind: "sleep", json: #"{"seconds":1e21}"#, reason: "seconds: must be between 0 and 86400"),
        Hostile(kind: "sleep", json: #"{"seconds":1e308}"#, reason: "seconds: must be between 0 and 86400"),
        Hostile(kind: "sleep", json: #"{"seconds":-1e308}"#, reason: "seconds: must be between 0 and 86400"),
        Hostile(kind: "sleep", json: #"{"seconds":-5}"#, reason: "seconds: must be between 0 and 86400"),
        Hostile(kind: "sleep", json: #"{"seconds":"NaN"}"#, reason: "seconds"),
        Hostile(kind: "sleep", json: #"{"seconds":"Infinity"}"#, reason: "seconds"),
        Hostile(kind: "fail", json: #"{"succeedOnAttempt":1e308}"#, reason: "succeedOnAttempt"),
        Hostile(kind: "fail", json: #"{"succeedOnAttempt":-1e308}"#, reason: "succeedOnAttempt"),
        Hostile(kind: "noop", json: #"{"deep":\#(deep)}"#, reason: ""),
        Hostile(kind: "noop", json: #"{"many":\#(million("0"))}"#, reason: ""),
        Hostile(kind: "table-read.parse", json: #"{"sourcePath":"sparse.fountain"}"#, reason: "too large"),
        Hostile(kind: "table-read.parse", json: #"{"sourcePath":"sparse.fountain","maxBytes":1e308}"#, reason: "maxBytes"),
        Hostile(kind: "table-read.parse", json: #"{"sourcePath":"sparse.fountain","maxBytes":-1}"#, reason: "maxBytes"),
        Hostile(kind: "table-read.parse", json: #"{"sourcePath":"sparse.fountain","maxBytes":9223372036854775807}"#, reason: "maxBytes"),
        Hostile(kind: "book-import.parse", json: #"{"sourcePath":"sparse.csv","format":"goodreads","prune":false,"maxBytes":-1e308}"#,
                reason: "maxBytes"),
        Hostile(kind: "book-import.enrich", json: #"{"bookIDs":[]}"#, reason: "bookIDs"),
        Hostile(kind: "book-import.enrich", json: #"{"bookIDs":\#(million("1e308"))}"#, reason: nil),
        Hostile(kind: "table-read.enrich", json: #"{"productionID":1e308}"#, reason: "productionID"),
        Hostile(kind: "table-read.assemble", json: #"{"productionID":-1e308}"#, reason: "productionID"),
        Hostile(kind: "assets.sweep", json: #"{"dryRun":"Infinity"}"#, reason: "dryRun"),
        Hostile(kind: "speech.synthesize", json: #"{"items":[{"text":"Hi.","voice":"en-us","options":{"speed":1e300}}]}"#,
                reason: "items.[0].options.speed: must be between 0.1 and 4"),
        Hostile(kind: "speech.synthesize", json: #"{"items":[{"text":"Hi.","voice":"en-us","options":{"speed":1e8}}]}"#,
                reason: "items.[0].options.speed"),
        Hostile(kind: "speech.synthesize", json: #"{"items":[{"text":"Hi.","voice":"en-us","options":{"pitch":9223372036854775807}}]}"#,
                reason: "items.[0].options.pitch"),
        Hostile(kind: "speech.synthesize", json: #"{"items":[{"text":"Hi.","voice":"en-us","options":{"volume":-1e308}}]}"#,
                reason: "items.[0].options.volume"),
        Hostile(kind: "speech.synthesize", json: #"{"items":[]}"#, reason: "no items"),
        Hostile(kind: "speech.synthesize", json: #"{"items":\#(million("0"))}"#, reason: "items"),
        Hostile(kind: "text.generate", json: #"{"providers":["openai"],"request":{"messages":[{"role":"user","content":"hi"}],"maxTokens":9223372036854775807}}"#,
                reason: "request: invalid request: max tokens"),
        Hostile(kind: "text.generate", json: #"{"providers":["openai"],"request":{"messages":[{"role":"user","content":"hi"}],"maxTokens":1,"temperature":-1e308}}"#,
                reason: "temperature"),
        Hostile(kind: "text.generate", json: #"{"providers":[],"request":{"messages":[],"maxTokens":1}}"#, reason: "providers"),
        Hostile(kind: "image.generate", json: #"{"providers":["openai"],"request":{"prompt":"a cat","size":"99999999999999999999x1"}}"#,
                reason: "size"),
        Hostile(kind: "text.embed", json: #"{"providers":["openai"],"texts":\#(million(#""x""#))}"#, reason: "texts"),
        Hostile(kind: "text.embed", json: #"{"providers":["openai"],"texts":[]}"#, reason: "texts"),
        Hostile(kind: "analysis.scene", json: #"{"productionID":"\#(uuid)","scene":{"index":1e308,"heading":"","body":""},"textProviders":["openai"],"embeddingProviders":["openai"]}"#,
                reason: nil),
        Hostile(kind: "analysis.synopsis", json: #"{"productionID":"\#(uuid)","textProviders":-1e308}"#, reason: "textProviders"),
        Hostile(kind: "analysis.character", json: #"{"productionID":"\#(uuid)","character":{"name":"A","lineCount":-1e308,"lines":""},"textProviders":["openai"]}"#,
                reason: nil),
        Hostile(kind: "analysis.frame", json: #"{"productionID":"\#(uuid)","scene":1e308,"heading":"","summary":"","imageProviders":["openai"],"size":"1x1"}"#,
                reason: nil),
        Hostile(kind: "book-import.prune-cache", json: #"{"dryRun":"Infinity"}"#, reason: "dryRun"),
        Hostile(kind: "bookshelf-scan.read", json: #"{"productionID":"\#(uuid)","photo":1e308,"visionProvider":"openai"}"#, reason: "photo"),
        Hostile(kind: "bookshelf-scan.read", json: #"{"productionID":"\#(uuid)","photo":-1,"visionProvider":"openai"}"#, reason: "photo"),
        Hostile(kind: "bookshelf-scan.read", json: #"{"productionID":"\#(uuid)","photo":0,"visionProvider":"openai"}"#, reason: "no photo 0"),
        Hostile(kind: "bookshelf-scan.match", json: #"{"productionID":"\#(uuid)","photo":9223372036854775807}"#, reason: "photo"),
        Hostile(kind: "bookshelf-scan.report", json: #"{"productionID":1e308}"#, reason: "productionID"),
    ]

    @Test func everyKindRefusesHostileValuesAndTheWorkerStaysUp() async throws {
        let cluster = try await TestCluster.make()
        let coordinator = cluster.startCoordinator()
        let environment = try cluster.processEnvironment()

        // The kinds a `reparto worker` registers, with their queues: every one gets a hostile case.
        let listing = try await RepartoProcess.run(["enqueue", "--list"], environment: environment)
        #expect(listing.status == 0, "\(listing.stderr)")
        var queues: [String: String] = [:]
        for line in listing.stdout.split(separator: "\n") {
            let fields = line.split(separator: "\t")
            guard fields.count >= 2, fields[1].hasPrefix("queue=") else { continue }
            queues[String(fields[0])] = String(fields[1].dropFirst("queue=".count))
        }
        #expect(queues.count >= 10)
        #expect(Set(queues.keys).subtracting(Self.cases.map(\.kind)).isEmpty,
                "kinds without a hostile case: \(Set(queues.keys).subtracting(Self.cases.map(\.kind)).sorted())")

        // 64 GiB of nothing on the asset volume: reading it whole would take the worker down.
        for name in ["sparse.fountain", "sparse.csv"] {
            let fd = open(cluster.assetsRoot.appendingPathComponent(name).path, O_CREAT | O_WRONLY, 0o644)
            try #require(fd >= 0)
            #expect(ftruncate(fd, 64 << 30) == 0)
            close(fd)
        }

        let worker = try RepartoProcess.start(TestCluster.workerArguments(["--concurrency", "4"]), environment: environment)
        let requests = Self.cases.compactMap { hostile -> JobRequest? in
            guard let queue = queues[hostile.kind] else { return nil }
            return JobRequest(kind: hostile.kind, queue: queue, parameters: Data(hostile.json.utf8), options: JobOptions(maxAttempts: 3))
        }
        let ids = try await cluster.client.enqueue(requests)
        let cases = Self.cases.filter { queues[$0.kind] != nil }
        try await cluster.wait(timeout: 150, for: "every hostile job to finish") {
            try await cluster.count("SELECT count(*) AS n FROM jobs WHERE id = ANY($1) AND state IN ('dead', 'succeeded')", [ids])
                == ids.count
        }
        // Still the first worker process: nothing it ran killed it, and it still takes work.
        #expect(worker.isRunning)
        let after = try await cluster.client.enqueue(NoopJob())
        try await cluster.wait(timeout: 60, for: "a noop job after the hostile ones") {
            try await cluster.count("SELECT count(*) AS n FROM jobs WHERE id = $1 AND state = 'succeeded'", [after]) == 1
        }
        #expect(worker.isRunning)

        for (id, hostile) in zip(ids, cases) {
            let row = try #require(try await cluster.postgres.query("SELECT state, attempts, last_error FROM jobs WHERE id = $1", [id]).first)
            let state = row.string("state") ?? "", error = row.string("last_error") ?? ""
            let shown = "\(hostile.kind) \(hostile.json.prefix(120)): \(state), \(error)"
            if hostile.reason == "" {
                #expect(state == "dead" || state == "succeeded", "\(shown)")
                if state == "dead" { #expect(!error.isEmpty, "\(shown)") }
                continue
            }
            #expect(state == "dead", "\(shown)")
            #expect(!error.isEmpty, "\(shown)")
            #expect(row.int("attempts") == 1, "a hostile job is dead at its first attempt: \(shown)")
            if let reason = hostile.reason { #expect(error.contains(reason), "\(shown)") }
        }

        kill(worker.processIdentifier, SIGTERM)
        await RepartoProcess.waitForExit(worker)
        try await coordinator.stop()
        await cluster.shutdown()
    }
}
