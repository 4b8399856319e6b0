import Foundation
import RepartoRuntime
import TableRead
import RepartoTestSupport
import Speech
import Testing

/// `reparto submit`, `results`, `run`, `cancel` and `retry` for table reads, through the built
/// binary against the real services.
@Suite("reparto CLI: table reads", .serialized, .timeLimit(.minutes(5)))
struct TableReadCLITests {
    static var example: String { TestEnvironment.repositoryRoot.appendingPathComponent("examples/the-last-table-read.fountain").path }
    static var exampleCast: String { TestEnvironment.repositoryRoot.appendingPathComponent("examples/cast.yaml").path }

    /// A clean failure: non-zero, exactly one `Error: …` line on stderr mentioning `text`, no trace.
    private func expectOneErrorLine(_ output: RepartoProcess.Output, mentioning text: String, _ what: String,
                                    sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(output.status != 0, "\(what): exit status", sourceLocation: sourceLocation)
        let lines = output.stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
        #expect(lines.count == 1, "\(what): stderr \(output.stderr)", sourceLocation: sourceLocation)
        #expect(lines.first?.hasPrefix("Error: ") == true && lines.first?.contains(text) == true,
                "\(what): stderr \(output.stderr)", sourceLocation: sourceLocation)
        #expect(!output.stderr.contains("Fatal error") && !output.stderr.contains("backtrace"), "\(what)", sourceLocation: sourceLocation)
    }

    @Test func submitRefusesBadInputWithOneLineAndCreatesNothing() async throws {
        let run = try await ProcessCluster.start()
        defer { run.forceStop() }
        let dir = run.logs
        let garbage = dir.appendingPathComponent("garbage.fountain")
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: garbage)
        let brokenCast = dir.appendingPathComponent("broken-cast.yaml")
        try "characters: [MARGOT: en\nnarrator: {".write(to: brokenCast, atomically: true, encoding: .utf8)
        let twiceCast = dir.appendingPathComponent("twice-cast.yaml")
        try "characters:\n  Margot: en-us\n  MARGOT: en-gb\n".write(to: twiceCast, atomically: true, encoding: .utf8)
        let caseLexicon = dir.appendingPathComponent("case-lexicon.yaml")
        try "Isolde: ee-ZOL-duh\nISOLDE: eye-SOLD\n".write(to: caseLexicon, atomically: true, encoding: .utf8)
        let alphabetLexicon = dir.appendingPathComponent("alphabet-lexicon.json")
        try #"{"Siobhan": {"phonemes": "S@v'A:n", "alphabet": "arpabet"}}"#.write(to: alphabetLexicon, atomically: true, encoding: .utf8)
        let cases: [(what: String, arguments: [String], mentioning: String)] = [
            ("a missing file", [dir.appendingPathComponent("missing.fountain").path], "cannot read"),
            ("a binary file", [garbage.path], "is not a screenplay"),
            ("a cast file that does not parse", [Self.example, "--cast", brokenCast.path], "not valid YAML or JSON"),
            ("a cast file naming a character twice", [Self.example, "--cast", twiceCast.path], "listed twice"),
            ("a missing cast file", [Self.example, "--cast", dir.appendingPathComponent("none.yaml").path], "cannot read cast file"),
            ("an unknown provider", [Self.example, "--provider", "no-such-provider"], "unknown voice provider 'no-such-provider'"),
            ("zero lines per job", [Self.example, "--lines-per-job", "0"], "--lines-per-job must be between 1 and 100"),
            ("an unknown format", [Self.example, "--formats", "wav,flac"], "unknown format 'flac' in --formats (wav, mp3, m4b)"),
            ("a scene range backwards", [Self.example, "--scenes", "7-3"], "--scenes '7-3': expected scene numbers and ranges"),
            ("scenes the script lacks", [Self.example, "--scenes", "2-9"], "scenes 2-9: the script has 4 scenes"),
            ("a character who never speaks", [Self.example, "--characters", "margot,zed"], "no character named ZED speaks in the script"),
            ("a lexicon with a word twice", [Self.example, "--lexicon", caseLexicon.path],
             "\(caseLexicon.path): invalid pronunciation lexicon: 'ISOLDE' and 'Isolde' differ only in case"),
            ("a lexicon with an unknown alphabet", [Self.example, "--lexicon", alphabetLexicon.path],
             "'Siobhan': unknown alphabet 'arpabet' (espeak, ipa)"),
            ("a missing lexicon", [Self.example, "--lexicon", dir.appendingPathComponent("none.yaml").path], "cannot read"),
        ]
        for (what, arguments, text) in cases {
            let output = try await RepartoProcess.run(["submit"] + arguments, environment: run.environment)
            expectOneErrorLine(output, mentioning: text, what)
            #expect(output.stdout.isEmpty, "\(what): stdout \(output.stdout)")
        }
        for table in ["productions", "jobs", "table_reads", "documents", "production_lines", "casts"] {
            #expect(try await run.cluster.count("SELECT count(*) AS n FROM \(table)") == 0, "nothing in \(table)")
        }
        #expect(TableReadFailureTests.allFiles(below: run.root).isEmpty, "nothing on the asset volume")
        await run.shutdown()
    }

    @Test func submitWaitThenResultsAsJSONMatchTheDatabase() async throws {
        let run = try await ProcessCluster.start()
        defer { run.forceStop() }
        let coordinator = try run.start("coordinator", ["coordinator"])
        let worker = try run.start("worker", ["worker", "--concurrency", "2"])

        let submitted = try await RepartoProcess.run(["submit", Self.example, "--cast", Self.exampleCast, "--wait"],
                                                     environment: run.environment)
        #expect(submitted.status == 0, "stdout: \(submitted.stdout) stderr: \(submitted.stderr)")
        let lines = submitted.stdout.split(separator: "\n").map(String.init)
        let id = try #require(lines.first.flatMap { UUID(uuidString: $0) }, "the first line is the production id: \(submitted.stdout)")
        #expect(lines.first == id.uuidString.lowercased())
        let tableRead = run.root.appendingPathComponent("productions/\(id.uuidString.lowercased())/table-read.wav").path
        #expect(lines.contains { $0.hasPrefix("  table read  \(tableRead)") }, "\(submitted.stdout)")
        #expect(FileManager.default.fileExists(atPath: tableRead))

        let json = try await RepartoProcess.run(["results", id.uuidString, "--json"], environment: run.environment)
        #expect(json.status == 0 && json.stderr.isEmpty, "\(json.stderr)")
        let decoded = try JSONDecoder().decode(TableReadResults.self, from: Data(json.stdout.utf8))
        let stored = try #require(try await run.tableReads.results(id))
        #expect(decoded == stored)
        #expect(decoded.state == "completed" && decoded.files?.audio == "productions/\(id.uuidString.lowercased())/table-read.wav")
        #expect(decoded.stages.map(\.name) == ["parse", "enrich", "generate", "assemble"])
        #expect(decoded.characters.map(\.name) == ["ISOLDE", "MARGOT", "DEV"])

        let text = try await RepartoProcess.run(["results", id.uuidString.lowercased()], environment: run.environment)
        #expect(text.status == 0)
        #expect(text.stdout.contains("state       completed (stage assemble)"), "\(text.stdout)")
        #expect(text.stdout.contains("  table read  \(tableRead)"), "\(text.stdout)")
        // Each character's voice with its engine, and what casting read (docs/speech.md, "Casting").
        #expect(text.stdout.contains("voice espeak-ng:en-gb-x-rp"), "\(text.stdout)")
        #expect(text.stdout.contains("      female ("), "\(text.stdout)")
        #expect(text.stdout.contains("      introduction: \"MARGOT, sixties, the director"), "\(text.stdout)")
        #expect(decoded.characters.first { $0.name == "MARGOT" }?.casting?.reason == "named in the cast file")

        let unknown = UUID()
        expectOneErrorLine(try await RepartoProcess.run(["results", unknown.uuidString], environment: run.environment),
                           mentioning: "no production with id \(unknown.uuidString)", "results of an unknown id")
        expectOneErrorLine(try await RepartoProcess.run(["results", "not-an-id"], environment: run.environment),
                           mentioning: "'not-an-id' is not a production id", "results of a malformed id")
        expectOneErrorLine(try await RepartoProcess.run(["cancel", id.uuidString], environment: run.environment),
                           mentioning: "has already finished", "cancel of a finished production")

        await worker.kill(SIGTERM)
        await coordinator.kill(SIGTERM)
        await run.shutdown()
    }

    @Test func cancelThenRetryASubmittedProduction() async throws {
        let run = try await ProcessCluster.start()
        defer { run.forceStop() }
        // No worker yet: the production waits in its parse stage.
        let coordinator = try run.start("coordinator", ["coordinator"])
        let script = run.logs.appendingPathComponent("short.fountain")
        try "INT. HALL - DAY\n\nADA\nHello.\n\nBOB\nGoodbye.\n".write(to: script, atomically: true, encoding: .utf8)
        let submitted = try await RepartoProcess.run(["submit", script.path], environment: run.environment)
        #expect(submitted.status == 0, "\(submitted.stderr)")
        let id = try #require(UUID(uuidString: submitted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))

        let cancelled = try await RepartoProcess.run(["cancel", id.uuidString], environment: run.environment)
        #expect(cancelled.status == 0 && cancelled.stdout == "cancelled \(id.uuidString)\n", "\(cancelled.stdout) \(cancelled.stderr)")
        let stopped = try await run.cluster.client.awaitProduction(id, timeout: 60)
        #expect(stopped.state == "cancelled")

        let retried = try await RepartoProcess.run(["retry", id.uuidString], environment: run.environment)
        #expect(retried.status == 0 && retried.stdout == "requeued 1 job\n", "\(retried.stdout) \(retried.stderr)")
        let worker = try run.start("worker", ["worker", "--concurrency", "2"])
        let done = try await run.cluster.client.awaitProduction(id, timeout: 120)
        let results = try #require(try await run.tableReads.results(id))
        #expect(done.state == "completed", "\(results.failures)")
        #expect(results.spokenLines == results.lineCount && results.missingLines == 0)

        await worker.kill(SIGTERM)
        await coordinator.kill(SIGTERM)
        await run.shutdown()
    }

    @Test func runDoesAWholeTableReadAndSaysWhereTheFilesAre() async throws {
        let run = try await ProcessCluster.start()
        defer { run.forceStop() }
        let output = try await RepartoProcess.run(["run", Self.example, "--cast", Self.exampleCast, "--workers", "2"],
                                                  environment: run.environment)
        #expect(output.status == 0, "stdout: \(output.stdout) stderr: \(output.stderr)")
        let lines = output.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("production ") == true, "\(output.stdout)")
        func path(_ label: String) -> String? {
            guard let line = lines.first(where: { $0.hasPrefix("  \(label)") }) else { return nil }
            let rest = line.dropFirst(2 + label.count).trimmingCharacters(in: .whitespaces)
            return rest.components(separatedBy: " (").first
        }
        for label in ["table read", "subtitles", "report"] {
            let file = try #require(path(label), "\(label) in \(output.stdout)")
            #expect(file.hasPrefix(run.root.path + "/productions/"), "\(label): \(file)")
            #expect(FileManager.default.fileExists(atPath: file), "\(label): \(file)")
        }
        let production = try #require(try await run.cluster.postgres.query("SELECT id, state FROM productions").first)
        #expect(production.string("state") == "completed")
        let id = try #require(production.uuid("id"))
        #expect(lines.first?.contains(id.uuidString.lowercased()) == true)
        let results = try #require(try await run.tableReads.results(id))
        #expect(path("table read") == run.root.appendingPathComponent(try #require(results.files).audio).path)
        await run.shutdown()
    }

    /// `--provider flite` casts every character and the narrator with flite's voices, and the two
    /// in-process workers speak them on `reparto speech-helper` processes.
    @Test func runWithFliteCastsAndSpeaksEveryLineWithItsVoices() async throws {
        let run = try await ProcessCluster.start()
        defer { run.forceStop() }
        let output = try await RepartoProcess.run(["run", Self.example, "--provider", "flite", "--workers", "2"],
                                                  environment: run.environment)
        #expect(output.status == 0, "stdout: \(output.stdout) stderr: \(output.stderr)")
        let id = try #require(try await run.cluster.postgres.query("SELECT id FROM productions").first?.uuid("id"))
        let results = try #require(try await run.tableReads.results(id))
        #expect(results.state == "completed", "\(results.failures)")
        #expect(results.provider == "flite")
        #expect(results.missingLines == 0 && results.spokenLines == results.lineCount && (results.lineCount ?? 0) > 0)
        let fliteVoices = Set(FliteProvider.voices.map(\.id))
        let voices = results.characters.compactMap(\.voice) + [results.narratorVoice ?? "none"]
        #expect(voices.count == results.characters.count + 1)
        #expect(voices.allSatisfy(fliteVoices.contains), "\(voices)")
        // flite has one female voice: the example's two women share it, pitched apart.
        let sounds = results.characters.map { "\($0.voice ?? "")/\($0.casting?.options?.pitch ?? 50)" } + ["\(results.narratorVoice ?? "")/50"]
        #expect(Set(sounds).count == sounds.count, "the narrator and each character sound apart: \(sounds)")
        let wav = try Data(contentsOf: run.root.appendingPathComponent(try #require(results.files).audio))
        // Every voice but kal speaks at 16 kHz; the table read takes its first line's rate.
        #expect(try WAVHeader(parsing: wav).format.sampleRate == 16000)
        #expect(try AudioLevels(wav: wav).rmsDBFS > -40)
        await run.shutdown()
    }
}
