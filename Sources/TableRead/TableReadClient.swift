import Assets
import Foundation
import Jobs
import Logging
import Postgres
import Screenplay
import Speech
import Threading

/// Submits scripts as table-read productions and reads their results: the producer side of the
/// pipeline, for the CLI and for services that embed it.
///
/// ```swift
/// let tableReads = TableReadClient(postgres: pool, assetsRoot: URL(fileURLWithPath: "/srv/reparto/assets"))
/// let id = try await tableReads.submit(file: URL(fileURLWithPath: "pilot.fountain"))
/// let progress = try await JobClient(postgres: pool).awaitProduction(id, timeout: 600)
/// let results = try await tableReads.results(id)
/// ```
public struct TableReadClient: Sendable {
    public let postgres: PostgresClient
    public let assetsRoot: URL

    public init(postgres: PostgresClient, assetsRoot: URL) {
        self.postgres = postgres
        self.assetsRoot = assetsRoot
    }

    /// Options of one submission.
    public struct Options: Sendable {
        public var cast: CastOverrides
        public var announceCharacters: Bool
        public var priority: JobPriority
        public var linesPerJob: Int
        public var name: String?
        /// Files besides the WAV master: MP3, M4B (with the title page's tags and the scenes as chapters).
        public var formats: [AudioFileFormat]
        /// How unusual words are said, applied to every line before synthesis (``PronunciationLexicon/load(from:)``).
        public var lexicon: PronunciationLexicon?

        public init(cast: CastOverrides = CastOverrides(), announceCharacters: Bool = false, priority: JobPriority = .normal,
                    linesPerJob: Int = 1, name: String? = nil, formats: [AudioFileFormat] = [.wav],
                    lexicon: PronunciationLexicon? = nil) {
            self.formats = formats
            self.lexicon = lexicon
            self.cast = cast
            self.announceCharacters = announceCharacters
            self.priority = priority
            self.linesPerJob = linesPerJob
            self.name = name
        }
    }

    /// Checks the script, copies it to the asset volume (content-addressed, so re-submitting an
    /// unchanged file stores nothing new) and creates the production with its parse job, in one
    /// transaction. Returns the production id.
    ///
    /// - Throws: ``TableReadError`` for a file that cannot be read or parsed, a bad option, or a
    ///   cast that does not validate; ``AssetError`` when the asset volume refuses the copy.
    public func submit(file: URL, options: Options = Options()) async throws -> UUID {
        guard (1...100).contains(options.linesPerJob) else {
            throw TableReadError.invalidOption("lines per job must be between 1 and 100, not \(options.linesPerJob)")
        }
        do { try options.cast.validate() } catch { throw TableReadError.invalidOption("cast: \(error.description)") }
        let root = assetsRoot
        let (sourcePath, format) = try await BlockingWork.run { () throws -> (String, DocumentFormat) in
            let data: Data
            do { data = try Data(contentsOf: file) } catch {
                throw TableReadError.unreadable(file.path, reason: (error as NSError).localizedDescription)
            }
            let document: ScreenplayDocument
            do { document = try ScreenplayReader.read(Array(data), fileName: file.lastPathComponent) } catch {
                throw TableReadError.unparsable(file.path, reason: "\(error)")
            }
            let digest = AssetStore.sha256(data)
            let ext = file.pathExtension.isEmpty ? document.format.rawValue : file.pathExtension.lowercased()
            let path = "sources/\(digest).\(AssetPath.sanitize(ext))"
            let store = try AssetStore(root: root)
            if try !store.claimBlocking(path) { try store.writeBlocking(data, to: path, mimeType: "text/plain") }
            return (path, document.format)
        }
        let request = TableReadRequest(sourcePath: sourcePath, sourceName: file.lastPathComponent, format: format.rawValue,
                                       cast: options.cast, announceCharacters: options.announceCharacters,
                                       linesPerJob: options.linesPerJob, priority: options.priority,
                                       formats: options.formats.filter { $0 != .wav }, lexicon: options.lexicon)
        let parameters = try JSONEncoder().encode(request)
        let id = UUID()
        let name = options.name ?? file.lastPathComponent
        try await postgres.withTransaction { connection in
            _ = try JobClient.createProduction(id: id, name: name, plan: TableReadRequest.plan,
                                               stage: TableReadRequest.Stage.parse.rawValue, parameters: parameters, in: connection)
            try TableReadRows.create(productionID: id, request: request, on: connection)
            var jobOptions = request.jobOptions
            jobOptions.productionID = id
            jobOptions.stage = TableReadRequest.Stage.parse.rawValue
            try JobClient.enqueue([try JobRequest(ParseJob(sourcePath: sourcePath, format: format.rawValue), options: jobOptions)],
                                  in: connection)
        }
        return id
    }

    /// Follows the table read until it finishes (progress through `onProgress`, LISTEN/NOTIFY
    /// driven), then returns its results.
    /// - Throws: a timeout after `timeout` seconds, or the database's errors.
    public func awaitResults(_ id: UUID, timeout: Double, logger: Logger,
                             onProgress: @escaping @Sendable (ProductionProgress) -> Void) async throws -> TableReadResults? {
        _ = try await JobClient(postgres: postgres).awaitProduction(id, timeout: timeout, logger: logger, onProgress: onProgress)
        return try await results(id)
    }

    /// Everything known about a table read so far (nil when `id` is not a table read).
    public func results(_ id: UUID) async throws -> TableReadResults? {
        guard var results = try await postgres.withConnection({ connection in try TableReadResultRows.load(id, on: connection) })
        else { return nil }
        if let audio = results.files?.audio {
            let root = assetsRoot
            let present = try await BlockingWork.run { () throws -> [String] in
                let store = try AssetStore(root: root)
                let base = (audio as NSString).deletingPathExtension
                return AudioFileFormat.allCases.filter { $0 != .wav }.map { "\(base).\($0.rawValue)" }.filter(store.exists)
            }
            results.files?.encodings = present.isEmpty ? nil : present
        }
        return results
    }

}

/// Why a table read could not be submitted.
public enum TableReadError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(String, reason: String)
    case unparsable(String, reason: String)
    case invalidOption(String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): return "cannot read \(path): \(reason)"
        case .unparsable(let path, let reason): return "\(path) is not a screenplay: \(reason)"
        case .invalidOption(let reason): return reason
        }
    }
}
