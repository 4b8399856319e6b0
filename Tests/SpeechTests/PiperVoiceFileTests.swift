import Foundation
import Testing
@testable import Speech

/// Piper voice files in a directory of the test's own: configs written here, models made of
/// protobuf field headers (a real model is only needed by ``PiperHelperServiceTests``).
final class PiperVoiceDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-piper-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// `NAME.onnx` (``onnx(size:)`` unless `model` is given) and `NAME.onnx.json` (`config`,
    /// unless nil), returning the model's path.
    @discardableResult
    func voice(_ name: String, config: String? = PiperVoiceDirectory.config(), model: Data? = nil) throws -> String {
        try (model ?? Self.onnx()).write(to: url.appendingPathComponent(name + ".onnx"))
        if let config { try Data(config.utf8).write(to: url.appendingPathComponent(name + ".onnx.json")) }
        return path(name + ".onnx")
    }

    /// A config as Piper's voices have them, with the fields the tests vary.
    static func config(sampleRate: String = "22050", speakers: String = "1", speakerMap: String = "{}", language: String = "en_US",
                       dataset: String = "joe", lengthScale: String = "1") -> String {
        """
        {"audio": {"sample_rate": \(sampleRate), "quality": "medium"}, "espeak": {"voice": "en-us"},
         "inference": {"noise_scale": 0.667, "length_scale": \(lengthScale), "noise_w": 0.8}, "phoneme_type": "espeak",
         "phoneme_id_map": {"_": [0], "^": [1], "$": [2], " ": [3], "a": [14]}, "num_symbols": 256,
         "num_speakers": \(speakers), "speaker_id_map": \(speakerMap), "piper_version": "1.0.0",
         "language": {"code": "\(language)", "family": "en"}, "dataset": "\(dataset)"}
        """
    }

    /// An ONNX model's top level: `ir_version`, `producer_name`, a `graph` of zeros filling the
    /// file to `size` bytes, and `opset_import`.
    static func onnx(size: Int = 80 << 10, graphLength: Int? = nil) -> Data {
        func varint(_ value: Int) -> [UInt8] {
            var value = UInt64(value), bytes: [UInt8] = []
            repeat {
                bytes.append(UInt8(value & 0x7f) | (value > 0x7f ? 0x80 : 0))
                value >>= 7
            } while value > 0
            return bytes
        }
        var data = Data([0x08, 0x07, 0x12, 0x07] + Array("pytorch".utf8))
        let opset: [UInt8] = [0x42, 0x02, 0x10, 0x0f]
        let body = size - data.count - opset.count - 1 - 3  // the graph's tag and a 3-byte length
        data.append(0x3a)
        data.append(contentsOf: varint(graphLength ?? body))
        data.append(Data(count: body))
        data.append(contentsOf: opset)
        return data
    }
}

@Suite(.timeLimit(.minutes(1))) struct PiperVoiceFileTests {
    @Test func aSingleSpeakerVoiceIsReadWithItsLanguageRateAndTraits() throws {
        let directory = try PiperVoiceDirectory()
        let model = try directory.voice("en_US-joe-medium")
        let voice = try PiperVoiceFile.read(model: model)
        #expect(voice.id == "en_US-joe-medium")
        #expect(voice.configPath == model + ".json")
        #expect(voice.languageCode == "en_US")
        #expect(voice.languages == ["en-us", "en"])
        #expect(voice.sampleRate == 22050)
        #expect(voice.quality == "medium")
        #expect(voice.dataset == "joe")
        #expect(voice.speakerCount == 1 && voice.speakers.isEmpty)
        #expect(voice.lengthScale == 1)

        let catalog = PiperVoiceCatalog.scan([directory.url.path])
        #expect(catalog.problems.isEmpty)
        let voices = catalog.voices()
        #expect(voices == [Voice(id: "en_US-joe-medium", name: "Joe (en_US, medium)", languages: ["en-us", "en"], gender: "male",
                                 provider: "piper", accent: "American", quality: .natural)])
        let resolved = try catalog.resolve("en_US-joe-medium")
        #expect(resolved.model == voice && resolved.speaker == nil)
    }

    @Test func eachSpeakerOfAMultiSpeakerModelIsAVoice() throws {
        let directory = try PiperVoiceDirectory()
        try directory.voice("en_GB-semaine-medium", config: PiperVoiceDirectory.config(
            speakers: "4", speakerMap: #"{"prudence": 0, "spike": 1, "obadiah": 2, "poppy": 3}"#, language: "en_GB", dataset: "semaine"))
        try directory.voice("en_US-arctic-medium", config: PiperVoiceDirectory.config(speakers: "3", dataset: "arctic"))
        let catalog = PiperVoiceCatalog.scan([directory.url.path])
        let voices = catalog.voices()
        #expect(voices.map(\.id) == ["en_GB-semaine-medium#prudence", "en_GB-semaine-medium#spike", "en_GB-semaine-medium#obadiah",
                                     "en_GB-semaine-medium#poppy", "en_US-arctic-medium#0", "en_US-arctic-medium#1", "en_US-arctic-medium#2"])
        #expect(voices.prefix(4).map(\.gender) == ["female", "male", "male", "female"])
        #expect(voices.prefix(4).allSatisfy { $0.accent == "British" && $0.languages == ["en-gb", "en"] })
        #expect(voices.dropFirst(4).allSatisfy { $0.gender == nil && $0.accent == "American" && $0.quality == .natural })
        #expect(try catalog.resolve("en_GB-semaine-medium#obadiah").speaker == 2)
        #expect(try catalog.resolve("en_US-arctic-medium#2").speaker == 2)
        #expect(try catalog.resolve("en_US-arctic-medium").speaker == nil)  // the model's default speaker
        #expect(throws: SpeechError.unknownVoice("en_US-arctic-medium#3", provider: "piper")) {
            try catalog.resolve("en_US-arctic-medium#3")
        }
        #expect(throws: SpeechError.unknownVoice("en_US-nobody-medium", provider: "piper")) { try catalog.resolve("en_US-nobody-medium") }
    }

    @Test func theGenderTableKnowsThePublishedVoicesAndNothingElse() {
        #expect(PiperVoiceTable.gender(dataset: "ryan", speaker: nil) == "male")
        #expect(PiperVoiceTable.gender(dataset: "lessac", speaker: nil) == "female")
        #expect(PiperVoiceTable.gender(dataset: "hfc_female", speaker: nil) == "female")
        #expect(PiperVoiceTable.gender(dataset: "northern_english_male", speaker: nil) == "male")
        #expect(PiperVoiceTable.gender(dataset: "libritts_r", speaker: "12") == nil)
        #expect(PiperVoiceTable.gender(dataset: "my_own_voice", speaker: nil) == nil)
        #expect(PiperVoiceTable.accent(languageCode: "en_GB") == "British")
        #expect(PiperVoiceTable.accent(languageCode: "de_DE") == nil)
    }

    /// Each broken voice is one error naming the file at fault, on one line.
    @Test(arguments: [
        ("no-config", nil, "en_US-x-medium.onnx.json", "missing"),
        ("not-json", "{this is not json", "en_US-x-medium.onnx.json", "not JSON"),
        ("no-rate", #"{"audio": {}, "espeak": {"voice": "en-us"}, "num_symbols": 1, "num_speakers": 1, "phoneme_id_map": {"a": [1]}}"#,
         "en_US-x-medium.onnx.json", "audio.sample_rate"),
        ("fractional-rate", PiperVoiceDirectory.config(sampleRate: "22050.5"), "en_US-x-medium.onnx.json", "audio.sample_rate"),
        ("huge-rate", PiperVoiceDirectory.config(sampleRate: "1e30"), "en_US-x-medium.onnx.json", "audio.sample_rate"),
        ("string-rate", PiperVoiceDirectory.config(sampleRate: "\"22050\""), "en_US-x-medium.onnx.json", "audio.sample_rate"),
        ("low-rate", PiperVoiceDirectory.config(sampleRate: "100"), "en_US-x-medium.onnx.json", "audio.sample_rate"),
        ("no-speakers", PiperVoiceDirectory.config(speakers: "0"), "en_US-x-medium.onnx.json", "num_speakers"),
        ("fractional-speakers", PiperVoiceDirectory.config(speakers: "2.5"), "en_US-x-medium.onnx.json", "num_speakers"),
        ("speaker-out-of-range", PiperVoiceDirectory.config(speakers: "2", speakerMap: #"{"a": 0, "b": 7}"#), "en_US-x-medium.onnx.json",
         "speaker_id_map"),
        ("bad-language", PiperVoiceDirectory.config(language: "en US; rm"), "en_US-x-medium.onnx.json", "language.code"),
        ("bad-length-scale", PiperVoiceDirectory.config(lengthScale: "-1"), "en_US-x-medium.onnx.json",
         "length_scale"),
    ] as [(String, String?, String, String)])
    func aBrokenConfigIsOneErrorNamingIt(_ label: String, config: String?, file: String, says: String) throws {
        let directory = try PiperVoiceDirectory()
        let model = try directory.voice("en_US-x-medium", config: config)
        let error = try #require(throws: SpeechError.self) { try PiperVoiceFile.read(model: model) }
        guard case .invalidVoiceFile(let path, let reason) = error else { Issue.record("\(label): \(error)"); return }
        #expect(path == directory.path(file), "\(label)")
        #expect(reason.contains(says), "\(label): \(reason)")
        #expect(!error.description.contains("\n") && error.description.contains(directory.path(file)), "\(label)")
    }

    @Test func anOversizedConfigIsRefusedBeforeItIsRead() throws {
        let directory = try PiperVoiceDirectory()
        let model = try directory.voice("en_US-x-medium", config: "")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: model + ".json"))
        try handle.truncate(atOffset: UInt64(PiperVoiceFile.maximumConfigSize + 1))  // sparse: nothing is written
        try handle.close()
        #expect(throws: SpeechError.invalidVoiceFile(path: model + ".json",
                                                     reason: "voice config is \(PiperVoiceFile.maximumConfigSize + 1) bytes, more than \(PiperVoiceFile.maximumConfigSize)")) {
            try PiperVoiceFile.read(model: model)
        }
    }

    /// Models that are too small, cut short, not protobuf, or protobuf without a graph.
    @Test(arguments: [
        ("tiny", Data(PiperVoiceDirectory.onnx().prefix(1000)), "truncated"),
        ("cut", Data(PiperVoiceDirectory.onnx(size: 200 << 10).prefix(100 << 10)), "truncated"),
        ("long-graph", PiperVoiceDirectory.onnx(graphLength: 90 << 10), "truncated"),
        ("text", Data(String(repeating: "This is not a model at all. ", count: 4000).utf8), "ONNX"),
        ("group-field", Data([0x0b] + [UInt8](repeating: 0, count: 70 << 10)), "not an ONNX model"),
        ("no-graph", Data([0x08, 0x07, 0x12, 0xf0, 0xa2, 0x04]) + Data(count: 70_000), "no graph"),
        ("empty", Data(), "truncated"),
    ] as [(String, Data, String)])
    func aBrokenModelIsOneErrorNamingIt(_ label: String, model data: Data, says: String) throws {
        let directory = try PiperVoiceDirectory()
        let model = try directory.voice("en_US-x-medium", model: data)
        let error = try #require(throws: SpeechError.self) { try PiperVoiceFile.read(model: model) }
        guard case .invalidVoiceFile(let path, let reason) = error else { Issue.record("\(label): \(error)"); return }
        #expect(path == model, "\(label)")
        #expect(reason.contains(says), "\(label): \(reason)")
        #expect(!error.description.contains("\n"), "\(label)")
    }

    @Test func aDirectoryListsItsGoodVoicesAndNamesItsBrokenOnes() throws {
        let directory = try PiperVoiceDirectory()
        let other = try PiperVoiceDirectory()
        try directory.voice("en_US-joe-medium")
        let broken = try directory.voice("en_US-ryan-high", model: Data("garbage".utf8))
        try Data(PiperVoiceDirectory.config().utf8).write(to: directory.url.appendingPathComponent("en_US-amy-low.onnx.json"))  // no model
        let shadowed = try other.voice("en_US-joe-medium")
        let missing = directory.path("no-such-dir")

        let catalog = PiperVoiceCatalog.scan([directory.url.path, shadowed, missing])
        #expect(catalog.models.map(\.id) == ["en_US-joe-medium"])
        #expect(catalog.problems.map(\.modelID) == ["en_US-ryan-high", "en_US-amy-low", "en_US-joe-medium", nil])
        // A voice whose files are broken is that file's error, not "unknown voice".
        let error = try #require(throws: SpeechError.self) { try catalog.resolve("en_US-ryan-high") }
        guard case .invalidVoiceFile(let path, _) = error else { Issue.record("\(error)"); return }
        #expect(path == broken)
        #expect(throws: SpeechError.invalidVoiceFile(path: directory.path("en_US-amy-low.onnx"), reason: "voice model missing: no such file")) {
            try catalog.resolve("en_US-amy-low")
        }
    }

    @Test func theCacheSeesAVoiceDroppedIntoTheDirectory() throws {
        let directory = try PiperVoiceDirectory()
        let cache = PiperVoiceCatalogCache()
        #expect(cache.catalog([directory.url.path]).models.isEmpty)
        try directory.voice("en_US-joe-medium")
        #expect(cache.catalog([directory.url.path]).models.map(\.id) == ["en_US-joe-medium"])
        try directory.voice("en_US-kathleen-low", config: PiperVoiceDirectory.config(dataset: "kathleen"))
        let voices = cache.catalog([directory.url.path]).voices()
        #expect(voices.map(\.id) == ["en_US-joe-medium", "en_US-kathleen-low"])
        #expect(voices.map(\.gender) == ["male", "female"])
    }
}

@Suite(.timeLimit(.minutes(1))) struct PiperProviderTests {
    @Test func theEnvironmentConfiguresIt() {
        let configuration = PiperConfiguration(environment: ["REPARTO_PIPER_PYTHON": "/opt/piper/bin/python", "REPARTO_PIPER_VOICES": "/a::/b/v.onnx",
                                                             "REPARTO_PIPER_HELPERS": "3"], installation: nil, processors: 8)
        #expect(configuration.python?.path == "/opt/piper/bin/python")
        #expect(configuration.voicePaths == ["/a", "/b/v.onnx"])
        #expect(configuration.helpers == 3 && configuration.threadsPerHelper == 2)
        #expect(configuration.problem == nil)
        let defaults = PiperConfiguration(environment: [:], installation: nil, processors: 2)
        #expect(defaults.python == nil && defaults.voicePaths.isEmpty && defaults.helpers == 2 && defaults.threadsPerHelper == 1)
    }

    @Test(arguments: ["0", "65", "two", "1e2"])
    func aBadHelperCountIsNamedInTheHint(_ value: String) throws {
        let directory = try PiperVoiceDirectory()
        try directory.voice("en_US-joe-medium")
        let provider = PiperProvider(environment: ["REPARTO_PIPER_PYTHON": "/bin/sh", "REPARTO_PIPER_VOICES": directory.url.path,
                                                   "REPARTO_PIPER_HELPERS": value])
        #expect(!provider.isConfigured)
        #expect(provider.configurationHint.contains("REPARTO_PIPER_HELPERS"))
    }

    @Test func itIsConfiguredOnlyWithAPythonAndAVoice() async throws {
        let directory = try PiperVoiceDirectory()
        let noPython = PiperProvider(configuration: PiperConfiguration(python: URL(fileURLWithPath: directory.path("python")),
                                                                       voicePaths: [directory.url.path]))
        #expect(!noPython.isConfigured)
        #expect(noPython.configurationHint.contains("REPARTO_PIPER_PYTHON") && noPython.configurationHint.contains("scripts/services up"))
        await #expect(throws: SpeechError.notConfigured(provider: "piper", hint: noPython.configurationHint)) {
            _ = try await noPython.synthesize(text: "Hello.", voice: "en_US-joe-medium", language: nil, options: .standard)
        }

        let noVoice = PiperProvider(configuration: PiperConfiguration(python: URL(fileURLWithPath: "/bin/sh"), voicePaths: [directory.url.path]))
        #expect(!noVoice.isConfigured)
        #expect(noVoice.configurationHint.contains("REPARTO_PIPER_VOICES"))
        try directory.voice("en_US-joe-medium")
        #expect(noVoice.isConfigured)
        #expect(try await noVoice.voices(language: "en").map(\.id) == ["en_US-joe-medium"])
        #expect(try await noVoice.voices(language: "de").isEmpty)
        #expect(try VoiceProviderRegistry.standard(environment: [:]).provider("piper").id == "piper")
    }

    @Test func onlyABrokenVoiceIsThatVoicesError() async throws {
        let directory = try PiperVoiceDirectory()
        let model = try directory.voice("en_US-joe-medium", model: Data(count: 10))
        let provider = PiperProvider(configuration: PiperConfiguration(python: URL(fileURLWithPath: "/bin/sh"), voicePaths: [directory.url.path]))
        let error = try await #require(throws: SpeechError.self) { _ = try await provider.voices(language: nil) }
        guard case .invalidVoiceFile(let path, _) = error else { Issue.record("\(error)"); return }
        #expect(path == model)
        #expect(provider.configurationHint.contains(model))
    }

    @Test func markupPiperWouldReadIsTakenApart() {
        #expect(PiperProvider.plainText("Say [[hh@l'oU]] now") == "Say [ [hh@l'oU]] now")
        #expect(!PiperProvider.plainText("[[[[x\0y").contains("[["))
        #expect(!PiperProvider.plainText("a\0b").contains("\0"))
    }

    /// A helper that dies during a line is replaced and the line tried once more; a line that
    /// breaks two helpers fails with a typed error, and the next line gets a new helper (these
    /// stand-ins read the request and exit, or never answer).
    @Test func aHelperThatDiesFailsItsLineAndIsReplaced() async throws {
        let pool = PiperHelperPool(executable: URL(fileURLWithPath: "/bin/sh"),
                                   arguments: ["-c", "head -c 24 >/dev/null; exit 3"], size: 1, lineTimeout: 60)
        let request = PiperRequest(modelPath: "/m.onnx", configPath: "/m.onnx.json", text: "Hello.")
        for _ in 0..<2 {
            let error = try await #require(throws: SpeechError.self) { _ = try await pool.synthesize(request) }
            guard case .engineFailed(let provider, _, let message) = error else { Issue.record("\(error)"); continue }
            #expect(provider == "piper" && message.hasPrefix("Piper helper: "))
        }
    }

    @Test func aHelperThatHangsIsATimeout() async throws {
        let pool = PiperHelperPool(executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "exec sleep 600"], size: 1, lineTimeout: 0.5)
        await #expect(throws: SpeechError.timeout(provider: "piper")) {
            _ = try await pool.synthesize(PiperRequest(modelPath: "/m.onnx", configPath: "/m.onnx.json", text: "Hello."))
        }
    }

    @Test func aHelperThatAnswersNonsenseIsAFailedLine() async throws {
        // Twelve bytes of header announcing status 9.
        let pool = PiperHelperPool(executable: URL(fileURLWithPath: "/bin/sh"),
                                   arguments: ["-c", #"head -c 24 >/dev/null; printf '\011\000\000\000\000\000\000\000\000\000\000\000'; exec sleep 600"#],
                                   size: 1, lineTimeout: 60)
        let error = try await #require(throws: SpeechError.self) {
            _ = try await pool.synthesize(PiperRequest(modelPath: "/m.onnx", configPath: "/m.onnx.json", text: ""))
        }
        guard case .engineFailed(_, _, let message) = error else { Issue.record("\(error)"); return }
        #expect(message.contains("status 9"))
    }
}
