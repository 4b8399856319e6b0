import Foundation
import Testing
@testable import Speech

@Suite(.timeLimit(.minutes(2))) struct EspeakProviderTests {
    let provider = EspeakProvider()

    @Test func listsVoicesAndVariantsAsEspeakReportsThem() async throws {
        #expect(provider.isConfigured)
        let all = try await provider.voices(language: nil)
        #expect(all.contains { $0.id == "en-us" })
        #expect(all.contains { $0.id == "de" })
        #expect(!all.contains { $0.id.contains("+") })
        let variants = try await provider.variants()
        #expect(variants.count > 10)
        let english = try await provider.voices(language: "en")
        #expect(english.allSatisfy { $0.speaks("en") })
        #expect(english.contains { $0.id.contains("+") })  // variants of the main voice
        #expect(Set(english.map(\.id)).count == english.count)
    }

    @Test func synthesizesParseableWAV() async throws {
        let audio = try await provider.synthesize(text: "Hello there. This is Reparto.", voice: "en-us", language: "en", options: .standard)
        #expect(audio.mimeType == "audio/wav")
        let header = try WAVHeader(parsing: audio.data)
        #expect(!header.wasStreamingHeader)
        #expect(header.format.bitsPerSample == 16)
        let pcm = try PCMAudio(wav: audio.data)
        #expect(pcm.duration > 0.5)
        #expect(pcm.rmsDBFS > -40)
        #expect(audio.duration == pcm.duration)
    }

    @Test func variantVoiceAndSpeedChangeTheAudio() async throws {
        let normal = try await provider.synthesize(text: "One two three four five.", voice: "en-us+Alicia", language: nil, options: .standard)
        let fast = try await provider.synthesize(text: "One two three four five.", voice: "en-us+Alicia", language: nil, options: .init(speed: 2))
        #expect(try PCMAudio(wav: fast.data).duration < PCMAudio(wav: normal.data).duration)
    }

    /// Only the process engine has a command line to inject into (the library engine hands the
    /// text to `espeak_Synth`), so this runs `espeak-ng` as a process. If the text were parsed as
    /// options, `-w PATH` would write the audio to PATH and stdout would carry no WAV.
    @Test func textThatLooksLikeOptionsIsSpokenNotParsed() async throws {
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("evil-\(UUID().uuidString).wav").path
        let process = EspeakProvider(engine: .process)
        #expect(process.engine == .process)
        let audio = try await process.synthesize(text: "--help -w \(target)", voice: "en", language: nil, options: .standard)
        #expect(try PCMAudio(wav: audio.data).duration > 0.3)
        #expect(!FileManager.default.fileExists(atPath: target))
        try? FileManager.default.removeItem(atPath: target)
    }

    @Test(arguments: ["klingon", "-w/tmp/x", "en-us+nosuchvariant", ""])
    func unknownVoicesAreTyped(voice: String) async {
        await #expect(throws: SpeechError.unknownVoice(voice, provider: "espeak-ng")) {
            try await provider.synthesize(text: "hi", voice: voice, language: nil, options: .standard)
        }
    }

    @Test func badTextIsTyped() async {
        await #expect(throws: SpeechError.emptyText) { try await provider.synthesize(text: " \n\t ", voice: "en", language: nil, options: .standard) }
        let small = EspeakProvider(maxCharactersPerRequest: 10)
        await #expect(throws: SpeechError.textTooLong(length: 11, limit: 10)) {
            try await small.synthesize(text: "hello world", voice: "en", language: nil, options: .standard)
        }
    }

    @Test func missingBinaryIsNotConfigured() async {
        let missing = EspeakProvider(executable: URL(fileURLWithPath: "/nonexistent/espeak-ng"))
        #expect(!missing.isConfigured)
        await #expect(throws: SpeechError.self) { try await missing.voices(language: nil) }
        var registry = VoiceProviderRegistry()
        registry.register(missing)
        #expect(throws: SpeechError.notConfigured(provider: "espeak-ng", hint: missing.configurationHint)) { try registry.configuredProvider() }
    }

    @Test func theEngineIsTheLibraryUnlessABinaryIsAskedFor() {
        #expect(EspeakProvider(environment: [:]).engine == .library)
        #expect(EspeakProvider(environment: ["ESPEAK_NG_PATH": "/usr/bin/espeak-ng"]).engine == .process)
        #expect(EspeakProvider(environment: ["REPARTO_ESPEAK_ENGINE": "process"]).engine == .process)
        #expect(EspeakProvider(executable: URL(fileURLWithPath: "/usr/bin/espeak-ng"), environment: [:]).engine == .process)
        #expect(EspeakProvider(environment: [:], engine: .process).engine == .process)
    }

    /// The library engine says what the command says, whatever the voice, variant, speed and
    /// pitch of the lines before (the library keeps them between syntheses). Not byte for byte:
    /// the engine carries a little state from one line to the next, so only a process's first
    /// line is identical (SpeakCommandTests checks that, per voice and speed). After 3,000
    /// random lines in one process these lines measured 1.4 % shorter to 8.6 % longer than the
    /// command's (klatt the most); a wrong speed changes them by 20–30 %.
    @Test func theLibraryAndTheCommandSayTheSame() async throws {
        let library = EspeakProvider(environment: [:], engine: .library)
        let command = EspeakProvider(environment: [:], engine: .process)
        let lines: [(String, String, SynthesisOptions)] = [
            ("en-gb", "Interior. Kitchen. Night.", .standard),
            ("en-us+Alicia", "She looks at the window and says nothing.", .init(speed: 1.4)),
            ("de", "Guten Abend, Isolde.", .init(pitch: 80)),
            ("en-gb", "Interior. Kitchen. Night.", .standard),
            ("en-gb+klatt", "Cut to black.", .init(speed: 0.8, pitch: 20)),
        ]
        for (voice, text, options) in lines {
            let fromLibrary = try await library.synthesize(text: text, voice: voice, language: nil, options: options)
            let fromCommand = try await command.synthesize(text: text, voice: voice, language: nil, options: options)
            #expect(fromLibrary.format == fromCommand.format)
            let a = try PCMAudio(wav: fromLibrary.data), b = try PCMAudio(wav: fromCommand.data)
            #expect(abs(a.duration - b.duration) < 0.12 * b.duration, "\(voice) \(options): \(a.duration) s vs \(b.duration) s")
            #expect(abs(a.rmsDBFS - b.rmsDBFS) < 2, "\(voice) \(options): \(a.rmsDBFS) dBFS vs \(b.rmsDBFS) dBFS")
            #expect(fromLibrary.duration == a.duration)
        }
    }

    @Test func textAfterANulByteIsSpokenToo() async throws {
        let library = EspeakProvider(environment: [:], engine: .library)
        let short = try await library.synthesize(text: "Hello.", voice: "en", language: nil, options: .standard)
        let long = try await library.synthesize(text: "Hello.\u{0}And a much longer second sentence after it.", voice: "en",
                                                language: nil, options: .standard)
        #expect(try PCMAudio(wav: long.data).duration > PCMAudio(wav: short.data).duration + 1)
    }

    @Test func aCancelledSynthesisNeverRuns() async throws {
        let library = EspeakProvider(environment: [:], engine: .library)
        _ = try await library.voices(language: nil)  // the listing is not what is cancelled here
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await library.synthesize(text: "Never said.", voice: "en", language: nil, options: .standard)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        // The synthesizer thread goes on serving the next request.
        let after = try await library.synthesize(text: "Said.", voice: "en", language: nil, options: .standard)
        #expect(try PCMAudio(wav: after.data).duration > 0.1)
    }

    @Test(arguments: EspeakProvider.Engine.allCases)
    func concurrentSynthesesAllSucceed(engine: EspeakProvider.Engine) async throws {
        let provider = EspeakProvider(environment: [:], engine: engine)
        let durations = try await withThrowingTaskGroup(of: Double.self) { group in
            for i in 0..<6 {
                group.addTask { try await PCMAudio(wav: provider.synthesize(text: "Line number \(i).", voice: "en", language: nil, options: .standard).data).duration }
            }
            return try await group.reduce(into: [Double]()) { $0.append($1) }
        }
        #expect(durations.count == 6)
        #expect(durations.allSatisfy { $0 > 0 })
    }
}

@Suite(.timeLimit(.minutes(2))) struct ProcessRunnerTests {
    /// Identities of the open descriptors of this process. Other suites run in parallel and
    /// open pipes of their own, so a count or a diff of descriptor numbers says nothing about
    /// these runs; identities the runs recorded do.
    static func openIdentities() -> Set<ProcessRunner.DescriptorWitness.Identity> {
        let directory = "/proc/self/fd"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return Set(names.compactMap { Int32($0).flatMap(ProcessRunner.DescriptorWitness.identity(of:)) })
    }

    /// Runs `body` under a witness and returns what the runs opened and what of it is still open.
    static func witnessed(_ body: () async throws -> Void) async rethrows -> (opened: Int, stillOpen: Int) {
        let witness = ProcessRunner.DescriptorWitness()
        try await ProcessRunner.$witness.withValue(witness) { try await body() }
        let opened = witness.identities
        return (opened.count, opened.intersection(openIdentities()).count)
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/fd")))
    func repeatedRunsDoNotLeakDescriptors() async throws {
        let runs = 200
        let (opened, stillOpen) = try await Self.witnessed {
            for i in 0..<runs {
                let out = try await ProcessRunner.run(executable: URL(fileURLWithPath: "/bin/cat"), arguments: [], stdin: Data("run \(i)".utf8))
                #expect(out.stdout == Data("run \(i)".utf8))
            }
        }
        // Two pipes (one inode for both ends) and a memory file a run, or three pipes.
        #expect(opened >= runs * 3)
        #expect(stillOpen == 0, "\(stillOpen) of the \(opened) descriptors the runs opened stayed open")
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/fd")))
    func repeatedSynthesesDoNotLeakDescriptors() async throws {
        let provider = EspeakProvider(engine: .process)
        let runs = 50
        let (opened, stillOpen) = try await Self.witnessed {
            for i in 0..<runs {
                _ = try await provider.synthesize(text: "Line \(i).", voice: "en", language: nil, options: .standard)
            }
        }
        #expect(opened >= runs * 3)
        #expect(stillOpen == 0, "\(stillOpen) of the \(opened) descriptors the syntheses opened stayed open")
    }

    @Test func largeInputDoesNotDeadlock() async throws {
        // 200 KiB through `cat`: more than both pipe buffers, so input and output must flow concurrently.
        let input = Data(repeating: UInt8(ascii: "x"), count: 200 * 1024)
        let out = try await ProcessRunner.run(executable: URL(fileURLWithPath: "/bin/cat"), arguments: [], stdin: input)
        #expect(out.status == 0)
        #expect(out.stdout == input)
    }

    @Test func exitStatusAndStderrAreReported() async throws {
        let out = try await ProcessRunner.run(executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "echo oops >&2; exit 3"], stdin: Data())
        #expect(out.status == 3)
        #expect(String(decoding: out.stderr, as: UTF8.self) == "oops\n")
    }
}

@Suite(.timeLimit(.minutes(2))) struct ProcessRunnerIsolationTests {
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/fd")))
    func childSeesOnlyStandardDescriptors() async throws {
        // Open an extra descriptor in this process; the child must not inherit it.
        let handle = try #require(FileHandle(forReadingAtPath: "/proc/self/status"))
        defer { try? handle.close() }
        let out = try await ProcessRunner.run(executable: URL(fileURLWithPath: "/bin/sh"),
                                              arguments: ["-c", "ls /proc/$$/fd"], stdin: Data())
        let fds = String(decoding: out.stdout, as: UTF8.self).split(separator: "\n").compactMap { Int($0) }
        #expect(fds.sorted() == [0, 1, 2])
    }

    @Test func missingExecutableThrows() async {
        await #expect(throws: (any Error).self) {
            try await ProcessRunner.run(executable: URL(fileURLWithPath: "/nonexistent/tool"), arguments: [], stdin: Data())
        }
    }
}
