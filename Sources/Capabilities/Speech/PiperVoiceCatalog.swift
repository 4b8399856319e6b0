import Foundation
import Synchronization

/// The Piper voices found in a path list (`REPARTO_PIPER_VOICES`: directories and `.onnx` files),
/// and the files there that are not usable voices.
///
/// A directory contributes every `NAME.onnx` in it (a `NAME.onnx.json` without its model is a
/// problem too); when two files have the same name, the first in path order is used.
public struct PiperVoiceCatalog: Sendable {
    /// The usable models, in path order.
    public var models: [PiperVoiceModel]
    /// One error per file that is missing, truncated or not a Piper voice.
    public var problems: [Problem]

    /// A voice file that cannot be used.
    public struct Problem: Sendable, Equatable {
        /// The voice id the file would have given (nil: a missing path entry).
        public var modelID: String?
        /// ``SpeechError/invalidVoiceFile(path:reason:)`` naming the file.
        public var error: SpeechError
    }

    /// Most files looked at in one directory.
    static let maximumDirectoryEntries = 10_000

    /// Reads every voice of `paths`.
    public static func scan(_ paths: [String]) -> PiperVoiceCatalog {
        var catalog = PiperVoiceCatalog(models: [], problems: [])
        var seen: [String: String] = [:]  // model id → model path
        func add(model: String) {
            let id = modelID(model)
            if let first = seen[id] {
                if first != model {
                    catalog.problems.append(Problem(modelID: id, error: .invalidVoiceFile(
                        path: model, reason: "another voice file has the name \(id) (\(first)): that one is used")))
                }
                return
            }
            seen[id] = model
            do { catalog.models.append(try PiperVoiceFile.read(model: model)) } catch {
                catalog.problems.append(Problem(modelID: id, error: error))
            }
        }
        for path in paths where !path.isEmpty {
            if path.hasSuffix(".onnx.json") {
                add(model: String(path.dropLast(5)))
            } else if path.hasSuffix(".onnx") {
                add(model: path)
            } else {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue,
                      let names = try? FileManager.default.contentsOfDirectory(atPath: path) else {
                    catalog.problems.append(Problem(modelID: nil, error: .invalidVoiceFile(
                        path: path, reason: "not a voice directory or a .onnx file")))
                    continue
                }
                let directory = URL(fileURLWithPath: path)
                let models = Set(names.filter { $0.hasSuffix(".onnx") })
                // Configs without their model are named too: a voice half copied is a problem to see.
                let orphans = names.filter { $0.hasSuffix(".onnx.json") && !models.contains(String($0.dropLast(5))) }
                for name in (models.sorted() + orphans.sorted().map { String($0.dropLast(5)) }).prefix(maximumDirectoryEntries) {
                    add(model: directory.appendingPathComponent(name).path)
                }
            }
        }
        return catalog
    }

    /// The voice id of model file `path`: its name without `.onnx`.
    static func modelID(_ path: String) -> String {
        let name = URL(fileURLWithPath: path).lastPathComponent
        return name.hasSuffix(".onnx") ? String(name.dropLast(5)) : name
    }

    /// Every voice, in casting order: higher quality first, then by id; one per speaker of a
    /// multi-speaker model.
    public func voices(provider: String = PiperProvider.providerID) -> [Voice] {
        let rank = ["high": 0, "medium": 1, "low": 2, "x_low": 3]
        let ordered = models.sorted { (rank[$0.quality ?? ""] ?? 4, $0.id) < (rank[$1.quality ?? ""] ?? 4, $1.id) }
        return ordered.flatMap { model -> [Voice] in
            let detail = " (" + ([model.languageCode] + (model.quality.map { [$0] } ?? [])).joined(separator: ", ") + ")"
            let accent = PiperVoiceTable.accent(languageCode: model.languageCode)
            let title = PiperVoiceTable.title(model.dataset)
            guard !model.speakers.isEmpty else {
                return [Voice(id: model.id, name: title + detail, languages: model.languages,
                              gender: PiperVoiceTable.gender(dataset: model.dataset, speaker: nil), provider: provider,
                              accent: accent, quality: .natural)]
            }
            return model.speakers.map { speaker in
                Voice(id: model.id + "#" + speaker.name, name: "\(title) \(speaker.name)" + detail, languages: model.languages,
                      gender: PiperVoiceTable.gender(dataset: model.dataset, speaker: speaker.name), provider: provider,
                      accent: accent, quality: .natural)
            }
        }
    }

    /// The model and speaker number of voice `id` (a model's id alone is its default speaker).
    /// - Throws: the file's ``SpeechError/invalidVoiceFile(path:reason:)`` when the voice's files
    ///   are there but broken, ``SpeechError/unknownVoice(_:provider:)`` otherwise.
    public func resolve(_ id: String) throws(SpeechError) -> (model: PiperVoiceModel, speaker: Int?) {
        if let model = models.first(where: { $0.id == id }) { return (model, nil) }
        if let hash = id.lastIndex(of: "#"), let model = models.first(where: { $0.id == id[..<hash] }) {
            let name = id[id.index(after: hash)...]
            if let speaker = model.speakers.first(where: { $0.name == name }) { return (model, speaker.number) }
        }
        let modelPart = id.lastIndex(of: "#").map { String(id[..<$0]) } ?? id
        if let problem = problems.first(where: { $0.modelID == modelPart || $0.modelID == id }) { throw problem.error }
        throw .unknownVoice(id, provider: PiperProvider.providerID)
    }
}

/// Remembers a scan while the files it read stay the same (names, sizes, modification times), so
/// a voice dropped into a directory is seen at the next line without reading every config each time.
final class PiperVoiceCatalogCache: Sendable {
    private let state = Mutex<(signature: String, catalog: PiperVoiceCatalog)?>(nil)

    func catalog(_ paths: [String]) -> PiperVoiceCatalog {
        let signature = Self.signature(paths)
        if let hit = state.withLock({ $0 }), hit.signature == signature { return hit.catalog }
        let catalog = PiperVoiceCatalog.scan(paths)
        state.withLock { $0 = (signature, catalog) }
        return catalog
    }

    /// What the scan depends on: each path's entries with their size and modification time.
    static func signature(_ paths: [String]) -> String {
        func stamp(_ path: String) -> String {
            var info = stat()
            guard stat(path, &info) == 0 else { return "\(path)|-" }
            return "\(path)|\(info.st_size)|\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)|\(info.st_ino)"
        }
        var parts: [String] = []
        for path in paths {
            parts.append(stamp(path))
            if path.hasSuffix(".onnx") { parts.append(stamp(path + ".json")); continue }
            if path.hasSuffix(".onnx.json") { parts.append(stamp(String(path.dropLast(5)))); continue }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            for name in names.sorted() where name.hasSuffix(".onnx") || name.hasSuffix(".onnx.json") {
                parts.append(stamp(path + "/" + name))
            }
        }
        return parts.joined(separator: "\n")
    }
}
