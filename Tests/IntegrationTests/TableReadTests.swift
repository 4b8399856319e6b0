import SpeechJobs
import Assets
import Foundation
import RepartoRuntime
import TableRead
import Postgres
import RepartoTestSupport
import Screenplay
import Speech
import Testing
import Threading

/// The table-read pipeline end to end against the real PostgreSQL, RabbitMQ and espeak-ng.
@Suite("table-read pipeline", .serialized, .timeLimit(.minutes(5)))
struct TableReadTests {
    static var example: URL {
        TestEnvironment.repositoryRoot.appendingPathComponent("examples/the-last-table-read.fountain")
    }

    /// A private cluster with a coordinator and a worker running every pipeline kind.
    struct Pipeline {
        let cluster: TestCluster
        let root: URL
        let tableReads: TableReadClient
        let services: [RunningService]

        static func start(providers: VoiceProviderRegistry? = nil, concurrency: Int = 2) async throws -> Pipeline {
            let cluster = try await TestCluster.make()
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-tableread-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            let registry = JobRegistry()
            TableReadKinds.registerWithSpeech(in: registry, environment: SpeechEnvironment(assetsRoot: root, postgres: cluster.postgres),
                                   providers: providers)
            let worker = cluster.startWorker(registry: registry, concurrency: concurrency, prefetch: 4)
            let coordinator = cluster.startCoordinator(plans: TableReadKinds.plans)
            return Pipeline(cluster: cluster, root: root, tableReads: TableReadClient(postgres: cluster.postgres, assetsRoot: root),
                            services: [worker, coordinator])
        }

        func finish(_ id: UUID, timeout: Double = 180) async throws -> TableReadResults {
            let progress = try await cluster.client.awaitProduction(id, timeout: timeout)
            #expect(progress.isFinished)
            return try #require(try await tableReads.results(id))
        }

        func stop() async throws {
            for service in services { try await service.stop() }
            await cluster.shutdown()
            try? FileManager.default.removeItem(at: root)
        }

        func file(_ relative: String) throws -> Data {
            try Data(contentsOf: root.appendingPathComponent(relative))
        }
    }

    @Test func theExampleScriptBecomesATableReadAndResubmissionsReuseWhatIsUnchanged() async throws {
        let pipeline = try await Pipeline.start()
        let castFile = try CastOverrides.load(from: TestEnvironment.repositoryRoot.appendingPathComponent("examples/cast.yaml"))
        let id = try await pipeline.tableReads.submit(file: Self.example, options: .init(cast: castFile))
        let results = try await pipeline.finish(id)
        #expect(results.state == "completed", "\(results.failures)")

        // Enrichment matches what the script says, counted by hand in examples/the-last-table-read.fountain:
        // dialogue blocks per speaker — ISOLDE 2 + 1 + 2 (scenes 1–3), MARGOT 3 + 2 + 1 (scenes 1, 3, 4),
        // DEV 2 + 2 + 1 (scenes 1, 2, 4).
        #expect(Dictionary(uniqueKeysWithValues: results.characters.map { ($0.name, $0.dialogueLines) })
                == ["ISOLDE": 5, "MARGOT": 6, "DEV": 5])
        #expect(results.characters.map(\.name) == ["ISOLDE", "MARGOT", "DEV"])
        #expect(results.characters.first { $0.name == "MARGOT" }?.voice == "en-gb-x-rp")
        // What casting read is stored with the production (migration 0014): "MARGOT, sixties, …
        // taps a pencil against her teeth"; the cast file named her voice.
        let margot = try #require(results.characters.first { $0.name == "MARGOT" })
        #expect(margot.provider == "espeak-ng" && margot.identity == "MARGOT")
        #expect(margot.gender == "female" && margot.age == "senior")
        #expect(margot.casting?.tier == .castFile)
        #expect(margot.casting?.evidence.contains { $0.source == .introduction } == true)
        #expect(results.narratorVoice == "en-gb")
        #expect(results.scenes.map(\.setting) == ["INT", "INT", "EXT", "INT"])
        #expect(results.scenes.map(\.location) == ["REHEARSAL ROOM", "REHEARSAL ROOM", "THEATRE ROOF", "REHEARSAL ROOM"])
        #expect(results.scenes.map(\.timeOfDay) == ["NIGHT", "LATER", "NIGHT", "CONTINUOUS"])
        #expect(results.characters.first { $0.name == "ISOLDE" }?.scenes == [1, 2, 3])
        let lineCount = try #require(results.lineCount)
        // Spoken by default (README: headings, action, transitions, dialogue; not parentheticals
        // or the title page), counted by hand: 4 section headings (## Act One, # The rehearsal room,
        // ## Act Two, # The empty seats), 4 scene headings, 8 action paragraphs, 1 transition
        // (CUT TO:), 1 centered line (THE END) and 16 dialogue blocks = 34.
        #expect(lineCount == 34)
        #expect((results.pageCount ?? 0) > 0)

        // The assembled files agree with each other and with the database.
        let files = try #require(results.files)
        let wav = try pipeline.file(files.audio)
        let header = try WAVHeader(parsing: wav)
        #expect(abs(header.duration - (results.audioSeconds ?? -1)) < 0.001)
        #expect(results.spokenLines == lineCount && results.missingLines == 0)
        let vtt = String(decoding: try pipeline.file(files.subtitles), as: UTF8.self)
        #expect(vtt.hasPrefix("WEBVTT\n"))
        let cueTimes = vtt.split(separator: "\n").filter { $0.contains(" --> ") }
        #expect(cueTimes.count == lineCount)
        #expect(vtt.contains("<v MARGOT>Did it have one?"))
        let starts = cueTimes.map { String($0.prefix(12)) }
        #expect(starts == starts.sorted(), "cues are in playing order")
        let chapters = try JSONDecoder().decode(TableReadChapters.self, from: try pipeline.file(files.chapters))
        #expect(chapters.chapters.map(\.title) == ["Act One", "Act Two"])
        #expect(chapters.chapters.flatMap(\.scenes).map(\.index) == [1, 2, 3, 4])
        let report = try JSONDecoder().decode(TableReadReport.self, from: try pipeline.file(files.report))
        #expect(report.missing.isEmpty && report.spokenLines == lineCount)
        // Loudness, measured apart from the normalizer by another EBU R128 meter.
        let loudness = try #require(report.loudness)
        #expect(loudness.mode != "skipped", "\(loudness.reason ?? "")")
        let meter = try await LoudnormMeter.measure(pipeline.root.appendingPathComponent(files.audio).path)
        #expect(abs(meter.integratedLUFS - -16) <= 1, "\(meter)")
        #expect(meter.truePeakDBTP <= -1, "\(meter)")
        #expect((results.peakDBFS ?? 0) <= -1, "sample peak below the true peak ceiling")
        #expect(results.loudnessLUFS == loudness.integratedLUFS && results.truePeakDBTP == loudness.truePeakDBTP)
        let metadata = try JSONSerialization.jsonObject(
            with: try pipeline.file("productions/\(id.uuidString.lowercased())/metadata.json")) as? [String: Any]
        let recorded = try #require(metadata?["files"] as? [String: Any])
        #expect(Set(recorded.keys) == ["table-read.wav", "table-read.vtt", "chapters.json", "report.json"])
        let cast = try await pipeline.cluster.count("SELECT count(*) AS n FROM casts WHERE owner = $1",
                                                    ["production:" + id.uuidString.lowercased()])
        #expect(cast == 1)
        let audioRows = try await pipeline.cluster.count("SELECT count(*) AS n FROM generated_content WHERE owner_kind = 'element'")

        // Unchanged: the document and every line's audio are reused; nothing is generated.
        let again = try await pipeline.tableReads.submit(file: Self.example, options: .init(cast: castFile))
        let second = try await pipeline.finish(again)
        #expect(second.state == "completed")
        #expect(second.documentID == results.documentID)
        #expect(second.stages.map(\.name) == ["parse", "enrich", "assemble"], "no generate stage when every line has audio")
        #expect(try await pipeline.cluster.count("SELECT count(*) AS n FROM generated_content WHERE owner_kind = 'element'") == audioRows)
        #expect(try pipeline.file(try #require(second.files).audio) == wav, "same lines, same table read")

        // One changed line: re-parsed, and only that line is generated.
        var text = try String(contentsOf: Self.example, encoding: .utf8)
        text = text.replacingOccurrences(of: "Three. He couldn't choose.", with: "Four. He kept adding them.")
        let changed = pipeline.root.appendingPathComponent("changed.fountain")
        try text.write(to: changed, atomically: true, encoding: .utf8)
        let third = try await pipeline.finish(try await pipeline.tableReads.submit(file: changed, options: .init(cast: castFile)))
        #expect(third.state == "completed")
        #expect(third.documentID != results.documentID)
        #expect(third.stages.first { $0.name == "generate" }?.total == 1)
        #expect(try await pipeline.cluster.count("SELECT count(*) AS n FROM generated_content WHERE owner_kind = 'element'") == audioRows + 1)

        // An audio file lost from the volume (its row still there) is noticed and made again.
        let lost = try #require(try await pipeline.cluster.postgres.query("""
            SELECT g.file_path FROM generated_content g JOIN production_lines l ON l.content_key = g.content_key
            WHERE l.production_id = $1 ORDER BY l.chapter_index, l.order_index LIMIT 1
            """, [id]).first?.string("file_path"))
        try FileManager.default.removeItem(at: pipeline.root.appendingPathComponent(lost))
        let fourth = try await pipeline.finish(try await pipeline.tableReads.submit(file: Self.example, options: .init(cast: castFile)))
        #expect(fourth.state == "completed" && fourth.missingLines == 0)
        #expect(fourth.stages.first { $0.name == "generate" }?.total == 1)
        #expect(FileManager.default.fileExists(atPath: pipeline.root.appendingPathComponent(lost).path))
        try await pipeline.stop()
    }

    @Test func aPoisonLineFailsOnlyItselfAndTheReportSaysWhy() async throws {
        let pipeline = try await Pipeline.start(providers: TestVoices.registry(TestVoices()))
        let script = pipeline.root.appendingPathComponent("poison.fountain")
        try """
            INT. LAB - DAY

            ADA
            This line is fine.

            BOB
            This line is POISON for the provider.

            ADA
            And this one is fine again.

            CY
            SILENCE, then nothing.

            DEE
            CLIPPED and loud.
            """.write(to: script, atomically: true, encoding: .utf8)
        let id = try await pipeline.tableReads.submit(file: script)
        let results = try await pipeline.finish(id)
        #expect(results.state == "completed_with_failures")
        let generate = try #require(results.stages.first { $0.name == "generate" })
        #expect(generate.succeeded == 5 && generate.failed == 1)
        #expect(results.stages.first { $0.name == "assemble" }?.succeeded == 1, "assembly runs with what there is")
        #expect(results.spokenLines == 5 && results.missingLines == 1)
        // Per line: the poisoned one failed with the provider's reason, every other one is complete.
        #expect(results.lines.count == 6)
        for line in results.lines {
            if line.speaker == "BOB" {
                #expect(line.status == .failed && (line.error ?? "").contains("poisoned"), "\(line)")
            } else {
                #expect(line.status == .complete && line.error == nil && line.provider == "test-voices", "\(line)")
            }
            #expect(line.rulesVersion == SpeakableRules.version)
        }
        #expect(results.lines.first { $0.speaker == "CY" }?.defects == [.silent])
        #expect(results.lines.first { $0.speaker == "DEE" }?.defects == [.clipped])
        #expect(results.lines.filter { $0.defects != nil }.count == 2, "only the silent and the clipped line are flagged")
        let report = try JSONDecoder().decode(TableReadReport.self, from: try pipeline.file(try #require(results.files).report))
        let missing = try #require(report.missing.first)
        #expect(report.flagged?.map(\.speaker).sorted() == ["CY", "DEE"])
        #expect(missing.speaker == "BOB" && missing.text.contains("POISON"))
        #expect(missing.reason.contains("poisoned"), "\(missing.reason)")
        #expect(results.failures.contains { $0.kind == SpeechJob.kind && $0.state == "dead" && ($0.error ?? "").contains("poisoned") })
        try await pipeline.stop()
    }

    @Test func aScopedReadSpeaksOnlyItsScenesOrCharactersAndReusesEveryLine() async throws {
        let voices = TestVoices()
        let pipeline = try await Pipeline.start(providers: TestVoices.registry(voices))
        let script = pipeline.root.appendingPathComponent("scoped-\(UUID().uuidString).fountain")
        try """
            INT. LAB - DAY

            ADA
            First.

            BOB
            Second.

            EXT. YARD - NIGHT

            BOB
            Third.

            CY
            Fourth.

            INT. LAB - LATER

            ADA
            Fifth.

            CY
            Sixth.
            """.write(to: script, atomically: true, encoding: .utf8)
        let full = try await pipeline.finish(try await pipeline.tableReads.submit(file: script))
        #expect(full.state == "completed" && full.lines.count == 9 && full.scope == nil)
        let spoken = await voices.synthesized
        #expect(spoken == 9)

        // Scenes 2–3: their headings and lines, all reused, so no generate job at all.
        let scenes = TableReadScope(scenes: [.init(first: 2, last: 3)])
        let second = try await pipeline.finish(try await pipeline.tableReads.submit(file: script, options: .init(scope: scenes)))
        #expect(second.state == "completed" && second.scope == scenes)
        #expect(second.lines.map(\.text) == ["Exterior. Yard. Night.", "Third.", "Fourth.", "Interior. Lab. Later.", "Fifth.", "Sixth."])
        #expect(second.lines.allSatisfy { $0.status == .complete })
        #expect(second.spokenLines == 6 && second.missingLines == 0)
        #expect(second.stages.first { $0.name == "generate" } == nil, "every line was reused")
        #expect(await voices.synthesized == spoken)
        let vtt = String(decoding: try pipeline.file(try #require(second.files).subtitles), as: UTF8.self)
        #expect(vtt.contains("Third.") && !vtt.contains("First.") && !vtt.contains("Second."))

        // BOB: his lines and the line before each run of them.
        let bob = try await pipeline.finish(try await pipeline.tableReads.submit(
            file: script, options: .init(scope: TableReadScope(characters: ["bob"]))))
        #expect(bob.lines.map(\.text) == ["First.", "Second.", "Exterior. Yard. Night.", "Third."])
        #expect(await voices.synthesized == spoken)

        // A scope the script cannot satisfy is refused at submission: nothing is created.
        await #expect(throws: TableReadError.invalidOption("scenes 4-5: the script has 3 scenes")) {
            try await pipeline.tableReads.submit(file: script, options: .init(scope: TableReadScope(scenes: [.init(first: 4, last: 5)])))
        }
        await #expect(throws: TableReadError.invalidOption("no character named ZED speaks in the script (its characters: ADA, BOB, CY)")) {
            try await pipeline.tableReads.submit(file: script, options: .init(scope: TableReadScope(characters: ["zed"])))
        }
        let created = try await pipeline.cluster.postgres.withConnection { connection in
            try connection.query("SELECT count(*) AS n FROM productions WHERE name = $1", [script.lastPathComponent]).first?.int("n")
        }
        #expect(created == 3, "the three reads above, and nothing for the refused scopes")
        try await pipeline.stop()
    }

    @Test func cancelKeepsFinishedAudioAndRetryFillsTheGapsThenAssembles() async throws {
        let voices = TestVoices()
        let pipeline = try await Pipeline.start(providers: TestVoices.registry(voices), concurrency: 1)
        let script = pipeline.root.appendingPathComponent("hold.fountain")
        try """
            INT. STUDIO - NIGHT

            ADA
            First line.

            BOB
            Please HOLD this line.

            ADA
            Third line.

            BOB
            Fourth line.
            """.write(to: script, atomically: true, encoding: .utf8)
        let id = try await pipeline.tableReads.submit(file: script)
        // The held line blocks the only handler slot; whatever was spoken before it (the worker
        // may start its queued lines in any order) is what the cancel must keep.
        try await pipeline.cluster.wait(for: "the held line to be running") { await voices.holding }
        try await pipeline.cluster.client.cancel(id)
        let cancelled = try await pipeline.finish(id)
        #expect(cancelled.state == "cancelled")
        try await pipeline.cluster.wait(for: "the held job to stop") {
            try await pipeline.cluster.count(
                "SELECT count(*) AS n FROM jobs WHERE production_id = $1 AND state IN ('queued', 'running')", [id]) == 0
        }
        // The handler itself has stopped too: after a late heartbeat a coordinator may end the row
        // (rescue) before the worker learns it lost the job and stops the handler.
        try await pipeline.cluster.wait(for: "the held handler to stop") { await !voices.holding }
        let spokenBeforeCancel = await voices.synthesized
        let kept = try await pipeline.cluster.count("SELECT count(*) AS n FROM generated_content WHERE owner_kind = 'element'")
        // With one handler slot, exactly the lines spoken before the held line started were
        // finished when the cancel came: nothing ran beside or after the held line.
        let spokenBeforeHold = try #require(await voices.spokenBeforeHold)
        #expect(kept == spokenBeforeCancel, "finished audio is kept")
        #expect(kept == spokenBeforeHold, "the held line and what waited behind it were not spoken")
        #expect(try await pipeline.cluster.count(
            "SELECT count(*) AS n FROM jobs WHERE production_id = $1 AND stage = 'generate' AND state = 'succeeded'", [id]) == kept)
        #expect(cancelled.files == nil, "a cancelled production is not assembled")

        await voices.release()
        let retried = try await pipeline.cluster.client.retry(id)
        #expect(retried == 5 - kept, "only the lines without audio run again")
        let done = try await pipeline.finish(id)
        #expect(done.state == "completed", "\(done.failures)")
        #expect(done.spokenLines == 5 && done.missingLines == 0)
        #expect(await voices.synthesized == 5, "the lines finished before the cancel were not spoken again")
        try await pipeline.stop()
    }

    /// MP3 and M4B next to the WAV: the title page's title and author as tags, one chapter per
    /// scene, the WAV's duration (read back by ffprobe, not by the encoder).
    @Test func mp3AndM4BCarryTheTitlePageAndTheScenesAsChapters() async throws {
        let pipeline = try await Pipeline.start()
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-formats-\(UUID().uuidString).fountain")
        try Data("""
            Title: Night Ferry
            Author: Ana Ortiz

            INT. CABIN - NIGHT

            Rain on the porthole.

            LENA
            We dock at six.

            EXT. DECK - NIGHT

            MARCO
            Not in this weather.

            INT. BRIDGE - DAWN

            LENA
            Then we wait.

            """.utf8).write(to: script)
        defer { try? FileManager.default.removeItem(at: script) }
        let id = try await pipeline.tableReads.submit(file: script, options: .init(formats: [.wav, .mp3, .m4b]))
        let results = try await pipeline.finish(id)
        #expect(results.state == "completed", "\(results.failures)")
        let files = try #require(results.files)
        let base = "productions/\(id.uuidString.lowercased())/table-read"
        #expect(files.encodings == ["\(base).mp3", "\(base).m4b"])
        let report = try JSONDecoder().decode(TableReadReport.self, from: try pipeline.file(files.report))
        #expect(report.encodingErrors == [], "\(report.encodingErrors ?? [])")
        for encoded in files.encodings ?? [] {
            let probe = try await FFprobe.read(pipeline.root.appendingPathComponent(encoded).path)
            #expect(probe.title == "Night Ferry" && probe.artist == "Ana Ortiz", "\(encoded)")
            #expect(probe.chapters == ["INT. CABIN - NIGHT", "EXT. DECK - NIGHT", "INT. BRIDGE - DAWN"], "\(encoded)")
            #expect(abs(probe.duration - (results.audioSeconds ?? 0)) < 0.15, "\(encoded): \(probe.duration)")
        }
        let metadata = try JSONSerialization.jsonObject(
            with: try pipeline.file("productions/\(id.uuidString.lowercased())/metadata.json")) as? [String: Any]
        let recorded = try #require(metadata?["files"] as? [String: Any])
        #expect(Set(recorded.keys).isSuperset(of: ["table-read.mp3", "table-read.m4b"]))
        try await pipeline.stop()
    }

    /// A Final Draft export's dual dialogue (a `<DualDialogue>` inside a paragraph) is spoken —
    /// both speakers, each line once — and what the parser warned about reaches the report.
    @Test func aFinalDraftExportSpeaksItsDualDialogueAndReportsParseWarnings() async throws {
        let pipeline = try await Pipeline.start()
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-dual-\(UUID().uuidString).fdx")
        try Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="no" ?>
            <FinalDraft DocumentType="Script" Template="No" Version="5"><Content>
            <Paragraph Type="Scene Heading"><Text>INT. GALLEY - NIGHT</Text></Paragraph>
            <Paragraph Type="General"><Text></Text><DualDialogue>
            <Paragraph Type="Character"><Text>COOK</Text></Paragraph><Paragraph Type="Dialogue"><Text>Soup is on.</Text></Paragraph>
            <Paragraph Type="Character"><Text>MATE</Text></Paragraph><Paragraph Type="Dialogue"><Text>Again?</Text></Paragraph>
            </DualDialogue></Paragraph>
            <Paragraph Type="Storyboard Frame"><Text>Frame twelve.</Text></Paragraph>
            </Content></FinalDraft>
            """.utf8).write(to: script)
        defer { try? FileManager.default.removeItem(at: script) }
        let id = try await pipeline.tableReads.submit(file: script, options: .init())
        let results = try await pipeline.finish(id)
        #expect(results.state == "completed", "\(results.failures)")
        // Spoken, by hand: the scene heading, two dialogue lines, the unknown paragraph read as action.
        #expect(results.lineCount == 4)
        #expect(Set(results.characters.map(\.name)) == ["COOK", "MATE"])
        let files = try #require(results.files)
        let vtt = String(decoding: try pipeline.file(files.subtitles), as: UTF8.self)
        #expect(vtt.contains("<v COOK>Soup is on.") && vtt.contains("<v MATE>Again?"), "\(vtt)")
        let report = try JSONDecoder().decode(TableReadReport.self, from: try pipeline.file(files.report))
        #expect(report.warnings.map(\.code) == [.unknownParagraphType])
        #expect(report.warnings.first?.message.contains("Storyboard Frame") == true)
        #expect(results.warnings == report.warnings)
        try await pipeline.stop()
    }
}

/// A voice provider for tests: a short tone per line; `POISON` in the text fails permanently;
/// `HOLD` waits until ``release()`` (or until the job is cancelled).
actor TestVoices {
    private(set) var holding = false
    private(set) var synthesized = 0
    /// How many lines had been spoken when a `HOLD` line first started waiting.
    private(set) var spokenBeforeHold: Int?
    private var released = false
    private var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]

    func release() {
        released = true
        for waiter in waiters.values { waiter.resume() }
        waiters.removeAll()
    }

    private func wake(_ ticket: UUID) {
        waiters.removeValue(forKey: ticket)?.resume()
    }

    func speak(_ text: String) async throws -> SynthesizedAudio {
        if text.contains("POISON") {
            throw SpeechError.rejected(provider: "test-voices", status: 400, message: "poisoned line")
        }
        if text.contains("HOLD") && !released {
            holding = true
            if spokenBeforeHold == nil { spokenBeforeHold = synthesized }
            let ticket = UUID()
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    if released || Task.isCancelled { continuation.resume() } else { waiters[ticket] = continuation }
                }
            } onCancel: {
                Task { await self.wake(ticket) }
            }
            holding = false
            try Task.checkCancellation()
        }
        synthesized += 1
        let seconds = 0.05 + Double(text.count) * 0.002
        // SILENCE speaks nothing audible, CLIPPED overdrives the waveform: what the report flags.
        let amplitude = text.contains("SILENCE") ? 0 : text.contains("CLIPPED") ? 1.6 : 0.3
        let samples = (0..<Int(seconds * 8000)).map { Float(max(-1, min(1, sin(Double($0) * 0.2) * amplitude))) }
        let audio = PCMAudio(sampleRate: 8000, channels: 1, samples: samples)
        return SynthesizedAudio(data: audio.wavData(), mimeType: "audio/wav", format: .pcm16(sampleRate: 8000), duration: seconds)
    }

    static func registry(_ voices: TestVoices) -> VoiceProviderRegistry {
        var registry = VoiceProviderRegistry(defaultProviderID: Provider.providerID)
        registry.register(Provider(voices: voices))
        return registry
    }

    struct Provider: VoiceProvider {
        static let providerID = "test-voices"
        let voices: TestVoices
        var id: String { Self.providerID }
        var displayName: String { "Test voices" }
        var outputMimeType: String { "audio/wav" }
        var requiresAPIKey: Bool { false }
        var isConfigured: Bool { true }
        var maxCharactersPerRequest: Int { 10_000 }

        func voices(language: String?) async throws -> [Voice] {
            ["alpha", "beta", "gamma", "delta"].map { Voice(id: $0, name: $0, languages: ["en"], provider: Self.providerID) }
        }

        func synthesize(text: String, voice: String, language: String?, options: SynthesisOptions) async throws -> SynthesizedAudio {
            try await voices.speak(text)
        }
    }
}

/// An EBU R128 meter apart from the normalizer's: the analysis pass of ffmpeg's `loudnorm` filter
/// (its own BS.1770 implementation, with 4× oversampled true peak), where the normalizer measures
/// with the `ebur128` filter: integrated loudness and true peak.
enum LoudnormMeter {
    struct MeterError: Error, CustomStringConvertible { let description: String }

    struct Reading: Sendable, CustomStringConvertible {
        var integratedLUFS: Double
        var truePeakDBTP: Double
        var description: String { "I \(integratedLUFS) LUFS, true peak \(truePeakDBTP) dBTP" }
    }

    static func measure(_ path: String) async throws -> Reading {
        let process = try await runSubprocess(URL(fileURLWithPath: "/usr/bin/env"),
                                              ["ffmpeg", "-hide_banner", "-nostats", "-nostdin", "-i", path,
                                               "-af", "loudnorm=print_format=json", "-f", "null", "-"], timeout: 120)
        let text = process.stderr
        // The figures come last, as a JSON object of strings: "input_i" : "-16.02", "input_tp" : "-1.48".
        guard let open = text.range(of: "{", options: .backwards),
              let object = try? JSONSerialization.jsonObject(with: Data(text[open.lowerBound...].utf8)) as? [String: String],
              let integrated = object["input_i"].flatMap(Double.init), let peak = object["input_tp"].flatMap(Double.init) else {
            throw MeterError(description: "no loudnorm measurement from ffmpeg (status \(process.status))")
        }
        return Reading(integratedLUFS: integrated, truePeakDBTP: peak)
    }
}

/// ffprobe's view of an encoded file: tags, chapter titles, duration.
enum FFprobe {
    struct Probe: Sendable {
        var title: String?
        var artist: String?
        var chapters: [String]
        var duration: Double
    }

    static func read(_ path: String) async throws -> Probe {
        let data = try await runSubprocess(URL(fileURLWithPath: "/usr/bin/env"),
                                           ["ffprobe", "-v", "error", "-show_chapters", "-show_format", "-of", "json", path],
                                           timeout: 60).stdoutData
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        let format = object["format"] as? [String: Any] ?? [:]
        let tags = format["tags"] as? [String: String] ?? [:]
        let chapters = (object["chapters"] as? [[String: Any]] ?? []).compactMap { ($0["tags"] as? [String: String])?["title"] }
        return Probe(title: tags["title"], artist: tags["artist"], chapters: chapters,
                     duration: Double(format["duration"] as? String ?? "") ?? -1)
    }
}
