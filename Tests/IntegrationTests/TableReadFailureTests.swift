import SpeechJobs
import Assets
import Foundation
import RepartoRuntime
import TableRead
import Postgres
import RepartoTestSupport
import Speech
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue #5's failure behaviour against the real services: workers and the coordinator killed
/// with SIGKILL mid-production (as `reparto` subprocesses), and an asset volume that fills up.
@Suite("table-read pipeline: killed processes and a full asset volume", .serialized, .timeLimit(.minutes(6)))
struct TableReadFailureTests {
    @Test func killingAWorkerMidGenerationLosesAndDuplicatesNoAudio() async throws {
        let run = try await ProcessCluster.start()
        defer { run.forceStop() }
        try await run.cluster.installSuccessLog()
        // The first worker's espeak-ng blocks on the line that says HOLD until the worker is gone,
        // so the kill is certain to interrupt a running generate job (the other slot keeps going).
        let held = run.logs.appendingPathComponent("held")
        var first = run.environment
        first["ESPEAK_NG_PATH"] = try run.holdingEspeak().path
        first["HOLD_MARKER"] = held.path
        let coordinator = try run.start("coordinator", ["coordinator"])
        let worker = try run.start("worker-1", Self.workerArguments, environment: first)
        let id = try await run.submit(Self.script(lines: 120, holdAt: 40))

        try await run.cluster.wait(timeout: 180, for: "the held line to be running after a few lines") {
            try await run.generate(id, state: "succeeded") >= 5 && FileManager.default.fileExists(atPath: held.path)
        }
        await worker.kill(SIGKILL)
        let total = try await run.cluster.count("SELECT count(*) AS n FROM jobs WHERE production_id = $1 AND stage = 'generate'", [id])
        #expect(try await run.generate(id, state: "succeeded") < total, "the worker died mid-generation")
        let second = try run.start("worker-2", Self.workerArguments)

        let progress = try await run.cluster.client.awaitProduction(id, timeout: 300)
        let results = try #require(try await run.tableReads.results(id))
        #expect(progress.state == "completed", "\(results.failures) \(worker.output)")
        let heldJob = try await run.cluster.postgres.query("""
            SELECT attempts, state FROM jobs
            WHERE production_id = $1 AND stage = 'generate' AND params->'items'->0->>'text' LIKE '%HOLD%'
            """, [id]).first
        #expect(heldJob?.string("state") == "succeeded")
        #expect((heldJob?.int("attempts") ?? 0) >= 2, "the held job was rescued from the dead worker and ran again")
        try await run.expectExactlyOnce(id, results: results)

        await second.kill(SIGTERM)
        await coordinator.kill(SIGTERM)
        await run.shutdown()
    }

    @Test func killingTheCoordinatorMidProductionStillFinishesItExactlyOnce() async throws {
        let run = try await ProcessCluster.start()
        defer { run.forceStop() }
        try await run.cluster.installSuccessLog()
        let coordinator = try run.start("coordinator-1", ["coordinator"])
        let worker = try run.start("worker", Self.workerArguments)
        let id = try await run.submit(Self.script(lines: 300, holdAt: nil))

        try await run.cluster.wait(timeout: 180, for: "the generate stage to be under way") {
            try await run.generate(id, state: "succeeded") >= 3
        }
        // Freeze the worker first, so the stage cannot finish before the coordinator is gone.
        worker.signal(SIGSTOP)
        let underWay = try #require(try await run.tableReads.results(id))
        try #require(underWay.stage == "generate" && (underWay.stages.first { $0.name == "generate" }?.pending ?? 0) > 0,
                     "the kill must land while lines are still to generate")
        await coordinator.kill(SIGKILL)
        worker.signal(SIGCONT)
        // Workers go on without a coordinator (they relay their own outbox), but nobody fans in.
        try await run.cluster.wait(timeout: 300, for: "every generate job to finish without a coordinator") {
            try await run.cluster.count("""
                SELECT count(*) AS n FROM jobs WHERE production_id = $1 AND stage = 'generate'
                  AND state IN ('queued', 'running', 'failed')
                """, [id]) == 0
        }
        let stalled = try #require(try await run.tableReads.results(id))
        #expect(stalled.state == "running" && stalled.stage == "generate")
        #expect(!stalled.stages.contains { $0.name == "assemble" })

        // Two coordinators restart at once: one leads, the production advances once.
        let restarted = [try run.start("coordinator-2", ["coordinator"]), try run.start("coordinator-3", ["coordinator"])]
        let progress = try await run.cluster.client.awaitProduction(id, timeout: 300)
        let results = try #require(try await run.tableReads.results(id))
        #expect(progress.state == "completed", "\(results.failures)")
        #expect(results.stages.map(\.name) == ["parse", "enrich", "generate", "assemble"])
        let assemble = results.stages.first { $0.name == "assemble" }
        #expect(assemble?.total == 1 && assemble?.succeeded == 1, "exactly one assemble job")
        #expect(try await run.cluster.count("SELECT count(*) AS n FROM jobs WHERE production_id = $1 AND stage = 'enrich'", [id]) == 1)
        let productionFolder = run.root.appendingPathComponent("productions/\(id.uuidString.lowercased())")
        let outputs = Set(try FileManager.default.contentsOfDirectory(atPath: productionFolder.path))
        #expect(outputs == ["table-read.wav", "table-read.vtt", "chapters.json", "report.json", "metadata.json", ".metadata.lock"],
                "one set of outputs")
        try await run.expectExactlyOnce(id, results: results)

        for process in restarted { await process.kill(SIGTERM) }
        await worker.kill(SIGTERM)
        await run.shutdown()
    }

    @Test(.enabled(if: Tmpfs.available || Tmpfs.required, "needs root and mount(8) for a small tmpfs (required when CI=true or REPARTO_TEST_REQUIRE_ALL=1)"))
    func aFullAssetVolumeFailsJobsClearlyAndLeavesNoHalfWrittenFiles() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-full-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        // The script (a few KiB) and a few lines of espeak-ng audio (~60-110 KiB each) fit; 16 lines do not.
        try #require(Tmpfs.mount(root, size: "384k"), "cannot mount a tmpfs on \(root.path)")
        defer {
            Tmpfs.unmount(root)
            try? FileManager.default.removeItem(at: root)
        }
        let pipeline = try await TableReadTests.Pipeline.start(root: root)
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-full-\(UUID().uuidString).fountain")
        try Self.script(lines: 16, holdAt: nil).write(to: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: script) }
        let id = try await pipeline.tableReads.submit(file: script)
        let results = try await pipeline.finish(id, timeout: 240)

        #expect(results.state == "completed_with_failures", "\(results.failures)")
        let generate = try #require(results.stages.first { $0.name == "generate" })
        #expect(generate.succeeded >= 1 && generate.failed >= 1, "a few lines fit, the rest do not: \(generate)")
        let dead = results.failures.filter { $0.state == "dead" }
        #expect(!dead.isEmpty)
        for failure in dead {
            #expect((failure.error ?? "").hasPrefix("asset volume is full (writing "), "\(failure.kind): \(failure.error ?? "-")")
        }
        if let files = results.files {
            // Assembly fitted after all: the report says why the rest is missing.
            let report = try JSONDecoder().decode(TableReadReport.self, from: try pipeline.file(files.report))
            #expect(!report.missing.isEmpty && report.missing.allSatisfy { $0.reason.contains("asset volume is full") })
        }

        // No half-written files: no temporary file left, every WAV complete and as recorded.
        let files = Self.allFiles(below: root)
        #expect(!files.contains { ($0 as NSString).lastPathComponent.hasPrefix(".tmp-") }, "\(files)")
        let recorded = try await pipeline.cluster.postgres.query("SELECT file_path, sha256 FROM generated_content")
        let checksums = Dictionary(recorded.compactMap { row in row.string("file_path").map { ($0, row.string("sha256") ?? "") } },
                                   uniquingKeysWith: { a, _ in a })
        let wavs = files.filter { $0.hasSuffix(".wav") }
        #expect(wavs.filter { $0.hasPrefix("cache/speech/") }.count == generate.succeeded)
        for wav in wavs {
            let data = try pipeline.file(wav)
            #expect(throws: Never.self, "\(wav) is a complete WAV file") { _ = try WAVHeader(parsing: data) }
            #expect(checksums[wav] == AssetStore.sha256(data), "\(wav) matches its recorded checksum")
        }
        try await pipeline.stop()
    }

    // MARK: helpers

    static let workerArguments = TestCluster.workerArguments(["--concurrency", "2", "--prefetch", "4"])

    /// A script of `lines` dialogue lines across three characters and four scenes. Every tenth
    /// line is "Say that again." (so some lines share audio); line `holdAt` says HOLD.
    static func script(lines: Int, holdAt: Int?) -> String {
        let characters = ["ADA", "BOB", "CLEO"]
        let places = ["KITCHEN", "GARDEN", "ATTIC", "HARBOUR"]
        let perScene = max(1, (lines + places.count - 1) / places.count)
        var text = ""
        for index in 0..<lines {
            let place = places[index / perScene % places.count]
            if index % perScene == 0 { text += "INT. \(place) - NIGHT\n\n" }
            let said: String
            if index == holdAt {
                said = "Please HOLD this line."
            } else if index % 10 == 9 {
                said = "Say that again."
            } else {
                said = "Line \(index + 1), in the \(place.lowercased())."
            }
            text += "\(characters[index % characters.count])\n\(said)\n\n"
        }
        return text
    }

    /// Every regular file below `root` (relative paths, hidden ones included).
    static func allFiles(below root: URL) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return [] }
        return walker.compactMap { $0 as? String }.filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path, isDirectory: &isDirectory)
                && !isDirectory.boolValue
        }
    }
}

/// A private cluster whose coordinator and workers are `reparto` subprocesses, sharing an asset
/// root; each process logs to a file under `logs`.
final class ProcessCluster: Sendable {
    let cluster: TestCluster
    let root: URL
    let logs: URL
    let environment: [String: String]
    let tableReads: TableReadClient
    private let children = ChildList()

    private init(cluster: TestCluster, root: URL, logs: URL, environment: [String: String]) {
        self.cluster = cluster
        self.root = root
        self.logs = logs
        self.environment = environment
        tableReads = TableReadClient(postgres: cluster.postgres, assetsRoot: root)
    }

    static func start() async throws -> ProcessCluster {
        let cluster = try await TestCluster.make()
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-processes-\(UUID().uuidString)")
        let root = base.appendingPathComponent("assets"), logs = base.appendingPathComponent("logs")
        for directory in [root, logs] { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        var environment = try cluster.processEnvironment()
        environment["REPARTO_ASSETS"] = root.path
        environment["REPARTO_MIGRATIONS"] = TestEnvironment.repositoryRoot.appendingPathComponent("migrations").path
        environment["ESPEAK_NG_PATH"] = nil
        return ProcessCluster(cluster: cluster, root: root, logs: logs, environment: environment)
    }

    /// Starts `reparto arguments…` with the cluster's environment (or `environment`).
    func start(_ name: String, _ arguments: [String], environment: [String: String]? = nil) throws -> Child {
        let child = try Child(name: name, arguments: arguments, environment: environment ?? self.environment, logs: logs)
        children.append(child)
        return child
    }

    /// Writes `script` outside the asset root and submits it (espeak-ng, one line per job).
    func submit(_ script: String) async throws -> UUID {
        let file = logs.appendingPathComponent("script-\(UUID().uuidString.prefix(8)).fountain")
        try script.write(to: file, atomically: true, encoding: .utf8)
        return try await tableReads.submit(file: file, options: .init(cast: CastOverrides(provider: EspeakProvider.providerID)))
    }

    func generate(_ id: UUID, state: String) async throws -> Int {
        try await cluster.count("SELECT count(*) AS n FROM jobs WHERE production_id = $1 AND stage = 'generate' AND state = $2",
                                [id, state])
    }

    /// An `espeak-ng` stand-in: passes everything to the real one, except a line containing HOLD,
    /// which it holds (touching `$HOLD_MARKER`) until the process that ran it is gone.
    func holdingEspeak() throws -> URL {
        let url = logs.appendingPathComponent("espeak-ng-holding")
        let script = """
            #!/bin/sh
            case "$*" in *--voices*) exec espeak-ng "$@";; esac
            text=$(cat)
            if printf '%s' "$text" | grep -q HOLD; then
                parent=$PPID
                : > "$HOLD_MARKER"
                while kill -0 "$parent" 2>/dev/null; do sleep 0.05; done
                exit 1
            fi
            printf '%s' "$text" | exec espeak-ng "$@"
            """
        try ExecutableScript.write(script, to: url)
        return url
    }

    /// No lost or duplicated audio, and one assembled table read that matches the database.
    func expectExactlyOnce(_ id: UUID, results: TableReadResults, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        // Every line has exactly one audio row whose file exists and matches its checksum.
        let lines = try await cluster.postgres.query("""
            SELECT l.chapter_index, l.order_index, l.content_key, count(g.id) AS rows,
                   min(g.file_path) AS file_path, min(g.sha256) AS sha256
            FROM production_lines l LEFT JOIN generated_content g ON g.content_key = l.content_key
            WHERE l.production_id = $1
            GROUP BY l.chapter_index, l.order_index, l.content_key
            """, [id])
        #expect(lines.count == results.lineCount && !lines.isEmpty, sourceLocation: sourceLocation)
        var keys = Set<String>()
        for line in lines {
            let position = "\(line.int("chapter_index") ?? -1)/\(line.int("order_index") ?? -1)"
            #expect(line.int("rows") == 1, "line \(position) has \(line.int("rows") ?? -1) audio rows", sourceLocation: sourceLocation)
            guard let path = line.string("file_path"), let key = line.string("content_key") else { continue }
            keys.insert(key)
            let data = try? Data(contentsOf: root.appendingPathComponent(path))
            #expect(data.map(AssetStore.sha256) == line.string("sha256"), "line \(position): \(path)", sourceLocation: sourceLocation)
        }
        #expect(results.spokenLines == lines.count && results.missingLines == 0, sourceLocation: sourceLocation)
        #expect(try await cluster.count("SELECT count(*) AS n FROM generated_content WHERE owner_kind = 'element'") == keys.count,
                sourceLocation: sourceLocation)

        // On disk: one WAV per content key and lock files, nothing else. A SIGKILL mid-write leaves
        // a temporary file, but the killed job runs again and its producer, holding the key's lock,
        // removes it.
        let files = TableReadFailureTests.allFiles(below: root.appendingPathComponent("cache/speech"))
        let names = files.map { ($0 as NSString).lastPathComponent }
        let wavs = names.filter { !$0.hasPrefix(".") && $0.hasSuffix(".wav") }
        #expect(wavs.count == keys.count, "no duplicate audio files", sourceLocation: sourceLocation)
        #expect(Set(wavs.map { "speech:" + ($0 as NSString).deletingPathExtension }) == keys, sourceLocation: sourceLocation)
        #expect(names.allSatisfy { !$0.hasPrefix(".") || $0.hasSuffix(".lock") }, "\(names)", sourceLocation: sourceLocation)
        #expect(try await cluster.count("""
            SELECT count(*) AS n FROM generated_content WHERE file_path LIKE '%.tmp-%'
            """) == 0, "temporary files are never recorded", sourceLocation: sourceLocation)

        // The assembled table read, once, as recorded.
        let outputs = try #require(results.files, sourceLocation: sourceLocation)
        for path in [outputs.audio, outputs.subtitles, outputs.chapters, outputs.report] {
            #expect(!path.contains(".tmp-"), sourceLocation: sourceLocation)
        }
        let wav = try Data(contentsOf: root.appendingPathComponent(outputs.audio))
        let header = try WAVHeader(parsing: wav)
        #expect(abs(header.duration - (results.audioSeconds ?? -1)) < 0.001, sourceLocation: sourceLocation)
        let recorded = try await cluster.postgres.query("""
            SELECT file_path, sha256 FROM generated_content WHERE owner_kind = 'identifier' AND owner_id = $1
            """, ["production:" + id.uuidString.lowercased()])
        #expect(Set(recorded.compactMap { $0.string("file_path") }) == [outputs.audio, outputs.subtitles], sourceLocation: sourceLocation)
        #expect(recorded.first { $0.string("file_path") == outputs.audio }?.string("sha256") == AssetStore.sha256(wav),
                sourceLocation: sourceLocation)

        // No job's success was applied twice.
        #expect(try await cluster.count("""
            SELECT count(*) AS n FROM (SELECT job_id FROM test_success_log GROUP BY job_id HAVING count(*) > 1) twice
            """) == 0, sourceLocation: sourceLocation)
    }

    /// SIGKILLs whatever still runs (after a failed expectation); synchronous, for `defer`.
    func forceStop() {
        for child in children.all where child.process.isRunning { kill(child.process.processIdentifier, SIGKILL) }
    }

    /// Stops every process still running, drops the database and removes the files.
    func shutdown() async {
        for child in children.all { await child.kill(SIGTERM) }
        await cluster.shutdown()
        try? FileManager.default.removeItem(at: root.deletingLastPathComponent())
    }
}

/// One `reparto` subprocess, its stdout and stderr going to `<logs>/<name>.log`.
final class Child: Sendable {
    let name: String
    let process: Process
    let log: URL

    init(name: String, arguments: [String], environment: [String: String], logs: URL) throws {
        self.name = name
        log = logs.appendingPathComponent("\(name).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        process = Process()
        process.executableURL = RepartoProcess.executable
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
    }

    /// Sends `signal` (if it still runs) and waits for the process to exit.
    func kill(_ signal: Int32) async {
        if process.isRunning { _ = Glibc.kill(process.processIdentifier, signal) }
        await RepartoProcess.waitForExit(process)
    }

    /// Sends a signal that does not end the process (SIGSTOP, SIGCONT).
    func signal(_ signal: Int32) {
        if process.isRunning { _ = Glibc.kill(process.processIdentifier, signal) }
    }

    /// What it printed so far.
    var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
}

/// The children a ``ProcessCluster`` started.
final class ChildList: Sendable {
    private let children = Mutex<[Child]>([])
    func append(_ child: Child) { children.withLock { $0.append(child) } }
    var all: [Child] { children.withLock { $0 } }
}

/// Small tmpfs mounts for a full asset volume (root and mount(8) only). Under CI (`CI=true`) and
/// `scripts/test` (`REPARTO_TEST_REQUIRE_ALL=1`) the test that needs one runs anyway, and fails
/// when mounting is impossible.
enum Tmpfs {
    static let required = ProcessInfo.processInfo.environment["CI"] == "true"
        || ProcessInfo.processInfo.environment["REPARTO_TEST_REQUIRE_ALL"] == "1"

    static let available: Bool = {
        guard getuid() == 0 else { return false }
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-tmpfs-probe-\(UUID().uuidString)")
        guard (try? FileManager.default.createDirectory(at: probe, withIntermediateDirectories: true)) != nil else { return false }
        defer { try? FileManager.default.removeItem(at: probe) }
        guard mount(probe, size: "64k") else { return false }
        unmount(probe)
        return true
    }()

    static func mount(_ directory: URL, size: String) -> Bool {
        run(["mount", "-t", "tmpfs", "-o", "size=\(size)", "tmpfs", directory.path])
    }

    /// Lazily, so a test that failed while a process still had files open does not leave the mount.
    static func unmount(_ directory: URL) {
        run(["umount", "-l", directory.path])
    }

    /// Runs `arguments` (mount, umount) to completion; false when it fails or hangs past 60 s.
    @discardableResult
    private static func run(_ arguments: [String]) -> Bool {
        (try? runSubprocessBlocking(URL(fileURLWithPath: "/usr/bin/env"), arguments, timeout: 60))?.status == 0
    }
}

extension TableReadTests.Pipeline {
    /// ``start(providers:concurrency:)`` with the asset volume at `root` (a mount, say); ``stop()``
    /// removes what is below it.
    static func start(root: URL, providers: VoiceProviderRegistry? = nil, concurrency: Int = 2) async throws -> Self {
        let cluster = try await TestCluster.make()
        let registry = JobRegistry()
        TableReadKinds.registerWithSpeech(in: registry, environment: SpeechEnvironment(assetsRoot: root, postgres: cluster.postgres),
                               providers: providers)
        let worker = cluster.startWorker(registry: registry, concurrency: concurrency, prefetch: 4)
        let coordinator = cluster.startCoordinator(plans: TableReadKinds.plans)
        return Self(cluster: cluster, root: root, tableReads: TableReadClient(postgres: cluster.postgres, assetsRoot: root),
                    services: [worker, coordinator])
    }
}
