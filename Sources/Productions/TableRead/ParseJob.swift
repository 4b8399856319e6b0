import SpeechJobs
import Assets
import Crypto
import Foundation
import RepartoRuntime
import Postgres
import Screenplay

/// Parses a screenplay from the asset volume and stores it in the `documents`,
/// `document_title_page` and `document_elements` tables.
///
/// The stored rows are committed in the same transaction that marks the job succeeded, so a
/// redelivered or retried job never stores a document twice. A document is identified by the
/// SHA-256 of its source bytes: an unchanged file submitted again reuses the stored document
/// (the result says `reused: true`), and its id is derived from the hash, so two jobs for the
/// same bytes running at once collide on the primary key instead of duplicating.
///
/// Bad input (an unreadable path, a path leaving the asset root, an empty or binary file, malformed
/// XML, a file over the size limit) fails the job at once with the reason as its `last_error`;
/// only transient failures are retried.
public struct ParseJob: JobParameters {
    /// The job kind's name.
    public static let kind = "table-read.parse"
    /// Parse jobs run on the `parse` queue.
    public static let queue = "parse"

    /// The source file, relative to the asset root. Absolute paths and `..` are rejected.
    public var sourcePath: String
    /// `fountain`, `fdx` or `markdown`; nil infers it from the extension, then the content.
    public var format: String?
    /// The input size limit in bytes, in ``maxBytesRange``; nil takes ``ParseOptions/defaultMaxBytes``.
    public var maxBytes: Int?

    /// The limits a job may set (1 byte to 256 MiB): the file is read into memory whole.
    public static let maxBytesRange = 1...(256 << 20)

    /// Parameters for parsing the file at `sourcePath` (relative to the asset root).
    public init(sourcePath: String, format: String? = nil, maxBytes: Int? = nil) {
        self.sourcePath = sourcePath
        self.format = format
        self.maxBytes = maxBytes
    }

    /// Refuses a `maxBytes` outside ``maxBytesRange`` (``JobError/invalidParameter(kind:field:reason:)``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sourcePath = try container.decode(String.self, forKey: .sourcePath)
        format = try container.decodeIfPresent(String.self, forKey: .format)
        maxBytes = try container.decodeIfPresent(Int.self, forKey: .maxBytes, in: Self.maxBytesRange)
    }

    /// Registers the `table-read.parse` kind with `registry`, reading sources below `environment.assetsRoot`.
    public static func register(in registry: JobRegistry, environment: SpeechEnvironment, timeout: Double = 300) {
        let root = environment.assetsRoot
        registry.register(ParseJob.self, timeout: timeout) { parameters, context in
            try await run(parameters, context: context, assetsRoot: root)
        }
    }

    /// Runs one parse job: read, hash, parse, then register the database effect.
    static func run(_ parameters: ParseJob, context: JobContext, assetsRoot: URL) async throws -> ParseJobResult {
        let path = try validatedPath(parameters.sourcePath)
        let format = try parameters.format.map(parseFormat)
        let maxBytes = parameters.maxBytes ?? ParseOptions.defaultMaxBytes
        guard maxBytesRange.contains(maxBytes) else {
            throw JobError.invalidParameter(kind: kind, field: "maxBytes",
                                            reason: "must be between 1 and \(maxBytesRange.upperBound), not \(maxBytes)")
        }
        let options = ParseOptions(maxBytes: maxBytes)

        let store = try AssetStore(root: assetsRoot)
        let data: Data
        do {
            // Checked against the limit before it is read, never more than the limit read.
            data = try await store.read(path, maxBytes: maxBytes)
        } catch let error as AssetError {
            if error.isRetryable { throw error }
            throw JobError.permanent("parse: \(error.description)")
        }

        let digest = SHA256.hash(data: data)
        let sha256 = HexDigest.string(digest)
        let documentID = DocumentIdentity.id(sha256Hex: sha256, digest: Array(digest),
                                             parserVersion: ScreenplayReader.parserVersion)

        let document: ScreenplayDocument
        do {
            document = try ScreenplayReader.read(Array(data), fileName: path, format: format, options: options)
        } catch {
            throw JobError.permanent("parse: \(path): \(error.description)")
        }

        let result = ParseJobResult(documentID: documentID, reused: false, format: document.format.rawValue,
                                    elementCount: document.elements.count, sha256: sha256,
                                    warnings: document.warnings.isEmpty ? nil : document.warnings)
        for warning in document.warnings {
            context.logger.warning("parse warning", metadata: ["source": "\(path)", "warning": "\(warning)"])
        }
        let productionID = context.productionID
        context.logger.debug("parsed screenplay", metadata: [
            "source": "\(path)", "format": "\(document.format.rawValue)", "elements": "\(document.elements.count)",
        ])
        // The stored result says whether the document was already there, which only the
        // completion transaction knows.
        context.transactionalResult { connection in
            try DocumentRows.store(document, id: documentID, sourcePath: path, sha256: sha256,
                                   productionID: productionID, on: connection)
        }
        return result
    }

    /// Confines `sourcePath` to the asset root: relative, no `..`, no empty path.
    static func validatedPath(_ sourcePath: String) throws -> String {
        guard !sourcePath.isEmpty else { throw JobError.permanent("parse: sourcePath is empty") }
        guard !sourcePath.hasPrefix("/") else {
            throw JobError.permanent("parse: sourcePath must be relative to the asset root: \(sourcePath)")
        }
        guard !sourcePath.contains("\0") else { throw JobError.permanent("parse: sourcePath contains a NUL byte") }
        let components = sourcePath.split(separator: "/", omittingEmptySubsequences: false)
        guard !components.contains("..") else {
            throw JobError.permanent("parse: sourcePath must not contain '..': \(sourcePath)")
        }
        return sourcePath
    }

    static func parseFormat(_ name: String) throws -> DocumentFormat {
        guard let format = DocumentFormat(rawValue: name.lowercased()) else {
            let known = DocumentFormat.allCases.map(\.rawValue).joined(separator: ", ")
            throw JobError.permanent("parse: unknown format '\(name)' (expected one of: \(known))")
        }
        return format
    }
}

/// The result of a `parse` job, stored as the job's result.
public struct ParseJobResult: Codable, Sendable, Equatable {
    /// The stored document's id (derived from ``sha256``).
    public var documentID: UUID
    /// True when a document with the same bytes was already stored and was reused.
    public var reused: Bool
    /// The stored document's format: `fountain`, `fdx` or `markdown`.
    public var format: String
    /// The stored document's number of elements.
    public var elementCount: Int
    /// Lower-case hex SHA-256 of the source bytes.
    public var sha256: String
    /// What the parser warned about (nil when nothing): elements read in a way the writer may
    /// not have meant, such as an unknown FDX paragraph type read as action.
    public var warnings: [ParseWarning]?

    /// A result; see the properties.
    public init(documentID: UUID, reused: Bool, format: String, elementCount: Int, sha256: String,
                warnings: [ParseWarning]? = nil) {
        self.documentID = documentID
        self.reused = reused
        self.format = format
        self.elementCount = elementCount
        self.sha256 = sha256
        self.warnings = warnings
    }
}
