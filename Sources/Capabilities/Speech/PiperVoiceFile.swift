import Foundation

/// One Piper voice: a model (`NAME.onnx`) and its config (`NAME.onnx.json`), checked.
///
/// Voice ids: a single-speaker model is its file name without `.onnx` (`en_US-joe-medium`); each
/// speaker of a multi-speaker model is `MODEL#SPEAKER`, where `SPEAKER` is a name of the config's
/// `speaker_id_map` (`en_GB-semaine-medium#spike`), or the speaker's number when the map is empty
/// (`en_US-arctic-medium#3`).
public struct PiperVoiceModel: Sendable, Hashable {
    /// The file name without `.onnx`.
    public var id: String
    /// The `.onnx` file.
    public var modelPath: String
    /// The `.onnx.json` file.
    public var configPath: String
    /// Piper's language code (`language.code`, e.g. `en_US`; older configs: `espeak.voice`).
    public var languageCode: String
    /// Output sample rate in Hz (`audio.sample_rate`).
    public var sampleRate: Int
    /// `audio.quality` (`x_low`, `low`, `medium`, `high`), if given.
    public var quality: String?
    /// `dataset` (`joe`, `libritts_r`, …), else the middle of the file name.
    public var dataset: String
    /// `num_speakers`.
    public var speakerCount: Int
    /// The speakers by number (empty for a single-speaker model).
    public var speakers: [PiperSpeaker]
    /// The model's own phoneme length scale (`inference.length_scale`, 1 when absent).
    public var lengthScale: Double

    /// Language codes as ``Voice/languages`` has them: `en_US` → `en-us`, `en`.
    public var languages: [String] {
        let code = languageCode.lowercased().replacingOccurrences(of: "_", with: "-")
        guard let dash = code.firstIndex(of: "-") else { return [code] }
        return [code, String(code[..<dash])]
    }
}

/// A speaker of a multi-speaker Piper model.
public struct PiperSpeaker: Sendable, Hashable {
    /// The name in the voice id (a `speaker_id_map` key, or the number).
    public var name: String
    /// The number the model is given (`sid`).
    public var number: Int
}

/// Reads and checks Piper voice files, so a missing, truncated or foreign file is one
/// ``SpeechError/invalidVoiceFile(path:reason:)`` naming it before any helper loads it.
///
/// The config is read only when it is at most ``maximumConfigSize`` bytes, and every number in it
/// is converted exactly (``WholeNumber``, ``FiniteNumber``) and range-checked. The model is checked without reading
/// it: its top-level protobuf fields are walked from their headers (an ONNX `ModelProto` with an
/// `ir_version` and a `graph`), which must end exactly at the end of the file, so a cut file is
/// caught by its sizes.
public enum PiperVoiceFile {
    /// Largest `.onnx.json` read (configs of the 900-speaker LibriTTS models are ~30 KB).
    public static let maximumConfigSize = 8 << 20
    /// Smallest `.onnx` accepted: the smallest published Piper model (`x_low`) is ~20 MB.
    public static let minimumModelSize = 64 << 10
    /// Largest `.onnx` accepted (protobuf's own limit is 2 GiB).
    public static let maximumModelSize = 2 << 30

    /// The voice of model file `model` with its config (default: `model` + `.json`).
    /// - Throws: ``SpeechError/invalidVoiceFile(path:reason:)`` naming the file at fault.
    public static func read(model: String, config: String? = nil) throws(SpeechError) -> PiperVoiceModel {
        let config = config ?? model + ".json"
        let parsed = try readConfig(config)
        try checkModel(model)
        let name = URL(fileURLWithPath: model).lastPathComponent
        let id = name.hasSuffix(".onnx") ? String(name.dropLast(5)) : name
        return try parsed.voice(id: id, modelPath: model, configPath: config)
    }

    // MARK: config

    /// The fields Reparto and Piper's `PiperConfig.from_dict` read.
    struct Config: Decodable {
        struct Audio: Decodable {
            var sample_rate: WholeNumber
            var quality: String?
        }
        struct Espeak: Decodable { var voice: String }
        struct Language: Decodable { var code: String? }
        struct Inference: Decodable { var length_scale: FiniteNumber? }
        var audio: Audio
        var espeak: Espeak
        var num_symbols: WholeNumber
        var num_speakers: WholeNumber
        var speaker_id_map: [String: WholeNumber]?
        var phoneme_id_map: [String: [WholeNumber]]
        var language: Language?
        var dataset: String?
        var inference: Inference?

        func voice(id: String, modelPath: String, configPath: String) throws(SpeechError) -> PiperVoiceModel {
            func invalid(_ field: String, _ problem: String) -> SpeechError {
                .invalidVoiceFile(path: configPath, reason: "not a Piper voice config: field \(field) \(problem)")
            }
            let sampleRate = audio.sample_rate.value, speakerCount = num_speakers.value
            guard (8_000...192_000).contains(sampleRate) else { throw invalid("audio.sample_rate", "is \(sampleRate), not 8000-192000") }
            guard (1...100_000).contains(speakerCount) else { throw invalid("num_speakers", "is \(speakerCount), not 1-100000") }
            guard (1...100_000).contains(num_symbols.value) else { throw invalid("num_symbols", "is \(num_symbols.value), not 1-100000") }
            guard !phoneme_id_map.isEmpty else { throw invalid("phoneme_id_map", "is empty") }
            let code = language?.code ?? espeak.voice
            guard (1...35).contains(code.count), code.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else {
                throw invalid(language?.code == nil ? "espeak.voice" : "language.code", "is not a language code")
            }
            let scale = inference?.length_scale?.value ?? 1
            guard (0.05...20).contains(scale) else { throw invalid("inference.length_scale", "is \(scale), not 0.05-20") }
            var speakers: [PiperSpeaker] = []
            if speakerCount > 1 {
                let map = speaker_id_map ?? [:]
                if map.isEmpty {
                    speakers = (0..<speakerCount).map { PiperSpeaker(name: String($0), number: $0) }
                } else {
                    for (name, entry) in map {
                        let number = entry.value
                        guard (0..<speakerCount).contains(number) else {
                            throw invalid("speaker_id_map", "gives \(name) the number \(number), not 0-\(speakerCount - 1)")
                        }
                        guard !name.isEmpty, name.count <= 100, !name.contains("#"),
                              !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                            throw invalid("speaker_id_map", "has an unusable speaker name")
                        }
                        speakers.append(PiperSpeaker(name: name, number: number))
                    }
                    speakers.sort { ($0.number, $0.name) < ($1.number, $1.name) }
                }
            }
            let quality = audio.quality.flatMap { $0.isEmpty || $0.count > 20 ? nil : $0 }
            let name = self.dataset.flatMap { $0.isEmpty || $0.count > 100 ? nil : $0 } ?? Self.dataset(fromFileName: id)
            return PiperVoiceModel(id: id, modelPath: modelPath, configPath: configPath, languageCode: code,
                                   sampleRate: sampleRate, quality: quality, dataset: name,
                                   speakerCount: speakerCount, speakers: speakers, lengthScale: scale)
        }

        /// `en_US-joe-medium` → `joe` (Piper's file names are `LANG-DATASET-QUALITY`).
        static func dataset(fromFileName id: String) -> String {
            let parts = id.split(separator: "-")
            return parts.count >= 3 ? parts[1...(parts.count - 2)].joined(separator: "-") : id
        }
    }

    static func readConfig(_ path: String) throws(SpeechError) -> Config {
        let data = try readBounded(path, limit: maximumConfigSize, what: "voice config")
        do {
            return try JSONDecoder().decode(Config.self, from: data)
        } catch let error as DecodingError {
            throw .invalidVoiceFile(path: path, reason: "not a Piper voice config: \(Self.describe(error))")
        } catch {
            throw .invalidVoiceFile(path: path, reason: "not a Piper voice config: not JSON")
        }
    }

    /// The file's bytes when it is a regular file of at most `limit` bytes.
    static func readBounded(_ path: String, limit: Int, what: String) throws(SpeechError) -> Data {
        let size = try regularFileSize(path, what: what)
        guard size <= limit else { throw .invalidVoiceFile(path: path, reason: "\(what) is \(size) bytes, more than \(limit)") }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw .invalidVoiceFile(path: path, reason: "cannot open the \(what)") }
        defer { try? handle.close() }
        do {
            // One byte more than allowed: a file that grew since the stat is caught too.
            let data = try handle.read(upToCount: limit + 1) ?? Data()
            guard data.count <= limit else { throw SpeechError.invalidVoiceFile(path: path, reason: "\(what) is more than \(limit) bytes") }
            return data
        } catch let error as SpeechError {
            throw error
        } catch {
            throw .invalidVoiceFile(path: path, reason: "cannot read the \(what): \(error.localizedDescription)")
        }
    }

    /// The size of the regular file at `path`.
    static func regularFileSize(_ path: String, what: String) throws(SpeechError) -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let reason = errno == ENOENT ? "no such file" : String(cString: strerror(errno))
            throw .invalidVoiceFile(path: path, reason: "\(what) missing: \(reason)")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .invalidVoiceFile(path: path, reason: "\(what) is not a regular file") }
        guard let size = Int(exactly: info.st_size) else { throw .invalidVoiceFile(path: path, reason: "\(what) has an impossible size") }
        return size
    }

    /// "field a.b: …" from a decoding error, without the values it quotes.
    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
            let all = keys + (last.map { [$0] } ?? [])
            return all.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing field \(path(context.codingPath, key))"
        case .valueNotFound(_, let context): return "field \(path(context.codingPath)) is null"
        case .typeMismatch(let type, let context): return "field \(path(context.codingPath)) is not \(Self.typeName(type))"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not JSON" : "field \(path(context.codingPath)) \(context.debugDescription)"
        @unknown default: return "unreadable"
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type: "a whole number"
        case is Double.Type: "a number"
        case is String.Type: "a string"
        default: "of the expected type"
        }
    }

    // MARK: model

    /// Checks that `path` is an ONNX model as a whole: see ``PiperVoiceFile``.
    static func checkModel(_ path: String) throws(SpeechError) {
        let size = try regularFileSize(path, what: "voice model")
        guard size >= minimumModelSize else {
            throw .invalidVoiceFile(path: path, reason: "voice model is \(size) bytes: truncated (a Piper model has megabytes)")
        }
        guard size <= maximumModelSize else { throw .invalidVoiceFile(path: path, reason: "voice model is \(size) bytes, more than \(maximumModelSize)") }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .invalidVoiceFile(path: path, reason: "cannot open the voice model: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        do {
            try ProtobufFields.checkONNXModel(size: size) { offset, count in
                var bytes = [UInt8](repeating: 0, count: count)
                let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, count, off_t(offset)) }
                return n < 0 ? [] : Array(bytes[0..<n])
            }
        } catch {
            throw .invalidVoiceFile(path: path, reason: error.description)
        }
    }
}

/// A JSON number that is a whole number exactly (`22050`, `22050.0`), else an error at its own
/// field (Foundation's own `Int` decoding reports a fraction as invalid JSON, with no field).
struct WholeNumber: Decodable {
    var value: Int

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Int.self) {
            self.value = value
        } else if let number = try? container.decode(Double.self), let value = Int(exactly: number) {
            self.value = value
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "is not a whole number")
        }
    }
}

/// A JSON number that is finite, else an error at its own field.
struct FiniteNumber: Decodable {
    var value: Double

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let value = try? container.decode(Double.self), value.isFinite else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "is not a finite number")
        }
        self.value = value
    }
}

/// The top level of a protobuf message, walked by its field headers.
enum ProtobufFields {
    /// Why a file is not a whole ONNX model.
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// Most top-level fields walked (an ONNX model has a dozen or so).
    static let maximumFields = 100_000

    /// Checks the fields of a `size`-byte message read through `read(offset, count)` (which returns
    /// fewer bytes at the end of the file): every field's header and length must fit, they must end
    /// exactly at `size`, and ONNX's `ir_version` (1, varint) and `graph` (7, length-delimited)
    /// must be there.
    static func checkONNXModel(size: Int, read: (Int, Int) -> [UInt8]) throws(Problem) {
        var offset = 0, fields = 0, irVersion = false, graph = false
        func varint() throws(Problem) -> UInt64 {
            let bytes = read(offset, 10)
            var value: UInt64 = 0
            for (index, byte) in bytes.enumerated() {
                value |= UInt64(byte & 0x7f) << (7 * UInt64(index))
                if byte & 0x80 == 0 {
                    offset += index + 1
                    return value
                }
            }
            throw Problem(description: bytes.count < 10 ? "voice model is truncated (it ends inside a field header)"
                                                        : "voice model is not an ONNX model (bad field header at byte \(offset))")
        }
        while offset < size {
            fields += 1
            guard fields <= maximumFields else { throw Problem(description: "voice model is not an ONNX model (too many top-level fields)") }
            let start = offset
            let tag = try varint()
            let number = tag >> 3, wireType = tag & 7
            guard number >= 1, number <= 1 << 29 else { throw Problem(description: "voice model is not an ONNX model (bad field at byte \(start))") }
            let length: UInt64
            switch wireType {
            case 0: _ = try varint(); length = 0
            case 1: length = 8
            case 2: length = try varint()
            case 5: length = 4
            default: throw Problem(description: "voice model is not an ONNX model (field wire type \(wireType) at byte \(start))")
            }
            guard length <= UInt64(size - offset) else {
                throw Problem(description: "voice model is truncated: field \(number) at byte \(start) needs \(length) bytes, \(size - offset) remain")
            }
            offset += Int(length)
            if number == 1 && wireType == 0 { irVersion = true }
            if number == 7 && wireType == 2 { graph = true }
        }
        guard irVersion, graph else {
            throw Problem(description: "voice model is not an ONNX model (no " + (irVersion ? "graph" : "ir_version") + " field)")
        }
    }
}
