import Foundation
#if canImport(Glibc)
import Glibc
#endif
import RepartoTestSupport
import Speech
import Testing

@Suite("reparto speak: libespeak-ng in process", .timeLimit(.minutes(2)))
struct SpeakCommandTests {
    /// The first line a process speaks through the library is byte for byte what the `espeak-ng`
    /// command writes for the same voice, speed and text (later lines differ by milliseconds: the
    /// engine's waveform state carries over, see EspeakProviderTests).
    @Test(arguments: [("en-gb", 1.0), ("en-us+Alicia", 1.4), ("en-gb+klatt", 0.8)])
    func aFreshProcessSaysExactlyWhatTheCommandSays(voice: String, speed: Double) async throws {
        let text = "Interior. Kitchen. Night. She looks at the window and says nothing."
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("speak-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: output) }
        var environment = ProcessInfo.processInfo.environment
        environment["ESPEAK_NG_PATH"] = nil
        environment["REPARTO_ESPEAK_ENGINE"] = nil
        let result = try await RepartoProcess.run(["speak", text, "--voice", voice, "--speed", "\(speed)", "-o", output.path, "--quiet"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let spoken = try Data(contentsOf: output)

        let command = try await runSubprocess(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["espeak-ng", "--stdout", "-b", "1", "-v", voice, "-s", "\(Int((175 * speed).rounded()))"],
            stdin: Data(text.utf8), timeout: 60)
        #expect(command.status == 0)
        let expected = try WAVWriter.normalized(command.stdoutData).data
        #expect(spoken.count == expected.count)
        let identical = spoken == expected  // a Bool: Swift Testing would diff two 200 kB collections
        #expect(identical, "the library's first line differs from espeak-ng's")
    }

    /// `reparto speech-helper` processes speak lines in parallel for a process that runs several
    /// workers; every line comes back whole, in the voice and at the speed it asked for.
    @Test func aHelperPoolSpeaksLinesConcurrentlyLikeTheLibrary() async throws {
        let pool = SpeechHelperPool(executable: RepartoProcess.executable, arguments: ["speech-helper"], size: 2)
        let pooled = EspeakProvider(environment: [:], engine: .library, helpers: pool)
        let library = EspeakProvider(environment: [:], engine: .library)
        let lines = (0..<8).map { ("Line number \($0) of the pool test, spoken at its own speed.", $0 % 2 == 0 ? 1.0 : 1.5) }
        let durations = try await withThrowingTaskGroup(of: (Int, Double).self) { group in
            for (index, line) in lines.enumerated() {
                group.addTask {
                    let audio = try await pooled.synthesize(text: line.0, voice: "en-us", language: nil, options: .init(speed: line.1))
                    return (index, try PCMAudio(wav: audio.data).duration)
                }
            }
            return try await group.reduce(into: [Int: Double]()) { $0[$1.0] = $1.1 }
        }
        #expect(durations.count == lines.count)
        for (index, line) in lines.enumerated() {
            let reference = try await library.synthesize(text: line.0, voice: "en-us", language: nil, options: .init(speed: line.1))
            let expected = try PCMAudio(wav: reference.data).duration
            // See EspeakProviderTests.theLibraryAndTheCommandSayTheSame for the tolerance.
            #expect(abs((durations[index] ?? 0) - expected) < 0.12 * expected, "line \(index)")
        }
        await #expect(throws: SpeechError.unknownVoice("zz", provider: "espeak-ng")) {
            try await pool.synthesize(EngineRequest(engine: .espeak, text: "Hello.", voice: "zz", rate: 175, pitch: 50))
        }
    }

    /// A helper's first line is byte for byte what libespeak-ng makes of the text, so a fresh
    /// helper per line compares the library's reading of a lexicon's `[[phonemes]]` exactly: the
    /// same as the phonemes typed directly, not the plain word; and its amplitude reaches the engine.
    @Test func aLexiconsPhonemesReachTheLibraryThroughAHelper() async throws {
        func speak(_ text: String, volume: Double? = nil) async throws -> Data {
            let pool = SpeechHelperPool(executable: RepartoProcess.executable, arguments: ["speech-helper"], size: 1)
            let provider = EspeakProvider(environment: [:], engine: .library, helpers: pool)
            return try await provider.synthesize(text: text, voice: "en-us", language: nil, options: .init(volume: volume)).data
        }
        let lexicon = try PronunciationLexicon(entries: ["Isolde": .init(respelling: "ee-ZOL-duh", phonemes: "i:z'0ld@")])
        let spoken = lexicon.spokenText("Isolde, wait.", alphabet: EspeakProvider(environment: [:]).phonemeAlphabet)
        let withEntry = try await speak(spoken), typed = try await speak("[[i:z'0ld@]], wait."), plain = try await speak("Isolde, wait.")
        #expect(withEntry == typed)
        #expect(withEntry != plain)
        let quiet = try PCMAudio(wav: try await speak("Isolde, wait.", volume: 0.3))
        #expect(quiet.rmsDBFS < (try PCMAudio(wav: plain)).rmsDBFS - 6)
    }

    /// `reparto speak --lexicon`: the entry's phonemes are what the engine is given (a fresh
    /// process's first line is exact), and a bad lexicon is one error line.
    @Test func speakSaysTheLexiconsPhonemesAndRefusesABadLexicon() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("speak-lexicon-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let lexicon = dir.appendingPathComponent("names.yaml"), bad = dir.appendingPathComponent("bad.yaml")
        try "Isolde:\n  phonemes: \"i:z'0ld@\"\n  respelling: ee-ZOL-duh\n".write(to: lexicon, atomically: true, encoding: .utf8)
        try "Isolde: {alphabet: klingon, phonemes: x}\n".write(to: bad, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["ESPEAK_NG_PATH"] = nil
        environment["REPARTO_ESPEAK_ENGINE"] = nil
        func speak(_ text: String, _ extra: [String] = []) async throws -> (RepartoProcess.Output, Data?) {
            let output = dir.appendingPathComponent("\(UUID().uuidString).wav")
            let result = try await RepartoProcess.run(["speak", text, "--voice", "en-us", "-o", output.path, "--quiet"] + extra,
                                                      environment: environment)
            return (result, try? Data(contentsOf: output))
        }
        let (_, withLexicon) = try await speak("Isolde, wait.", ["--lexicon", lexicon.path])
        let (_, typed) = try await speak("[[i:z'0ld@]], wait.")
        let (_, plain) = try await speak("Isolde, wait.")
        #expect(withLexicon != nil && withLexicon == typed)
        #expect(withLexicon != plain)
        let (refused, file) = try await speak("Isolde.", ["--lexicon", bad.path])
        #expect(refused.status != 0 && file == nil)
        #expect(refused.stderr.split(separator: "\n") == ["Error: \(bad.path): invalid pronunciation lexicon: 'Isolde': unknown alphabet 'klingon' (espeak, ipa)"])
    }

    @Test func aHelperThatDiesFailsItsLineWithATypedError() async throws {
        let pool = SpeechHelperPool(executable: URL(fileURLWithPath: "/bin/false"), arguments: [], size: 1)
        for _ in 0..<2 {  // started again for the next line, and failing again
            await #expect {
                try await pool.synthesize(EngineRequest(engine: .espeak, text: "Hello.", voice: "en", rate: 175, pitch: 50))
            } throws: { error in
                guard case .engineFailed(let provider, _, let message)? = error as? SpeechError else { return false }
                return provider == "espeak-ng" && message.contains("synthesizer helper")
            }
        }
    }

    @Test func aKilledHelperFailsOneLineAndIsStartedAgain() async throws {
        // A link of its own, so this pool's helpers are told apart from other tests' by their argv[0].
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("helper-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let link = directory.appendingPathComponent("reparto")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: RepartoProcess.executable)
        let pool = SpeechHelperPool(executable: link, arguments: ["speech-helper"], size: 1)
        _ = try await pool.synthesize(EngineRequest(engine: .espeak, text: "First.", voice: "en", rate: 175, pitch: 50))
        let helpers = Self.childHelpers(startedAs: link.path)
        #expect(helpers.count == 1)
        for pid in helpers { kill(pid, SIGKILL) }
        await #expect(throws: SpeechError.self) {
            try await pool.synthesize(EngineRequest(engine: .espeak, text: "Lost with its helper.", voice: "en", rate: 175, pitch: 50))
        }
        let again = try await pool.synthesize(EngineRequest(engine: .espeak, text: "Spoken by a new helper.", voice: "en", rate: 175, pitch: 50))
        #expect(again.pcm.count > 22050)  // more than half a second of 16-bit samples
        let now = Self.childHelpers(startedAs: link.path)
        #expect(now.count == 1 && now != helpers)
    }

    /// Living children of this process started as `executable speech-helper`.
    static func childHelpers(startedAs executable: String) -> Set<Int32> {
        let me = getpid()
        var found = Set<Int32>()
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry),
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, fields[0] != "Z", Int32(fields[1]) == me,
                  let commandLine = try? String(contentsOfFile: "/proc/\(entry)/cmdline", encoding: .utf8),
                  commandLine.split(separator: "\0").map(String.init) == [executable, "speech-helper"] else { continue }
            found.insert(pid)
        }
        return found
    }
}
