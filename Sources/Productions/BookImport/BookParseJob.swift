import Assets
import BookCatalog
import Foundation
import RepartoRuntime
import Postgres

/// The parse stage of a book import: reads the export from the asset volume, merges its
/// duplicates and stores its books, authors and rows in the completion transaction, so a
/// redelivered or retried job never stores an export twice.
public struct BookParseJob: JobParameters {
    public static let kind = "book-import.parse"
    public static let queue = "books"

    /// The export, relative to the asset root.
    public var sourcePath: String
    public var format: ExportFormat
    /// Remove library books the export no longer holds.
    public var prune: Bool
    /// The size limit the export was checked against at submission, in ``maxBytesRange`` (nil:
    /// the reader's default).
    public var maxBytes: Int?

    /// The limits a job may set (1 byte to 256 MiB): the export is read into memory whole.
    public static let maxBytesRange = 1...(256 << 20)

    public init(sourcePath: String, format: ExportFormat, prune: Bool, maxBytes: Int? = nil) {
        self.sourcePath = sourcePath
        self.format = format
        self.prune = prune
        self.maxBytes = maxBytes
    }

    /// Refuses a `maxBytes` outside ``maxBytesRange`` (``JobError/invalidParameter(kind:field:reason:)``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sourcePath = try container.decode(String.self, forKey: .sourcePath)
        format = try container.decode(ExportFormat.self, forKey: .format)
        prune = try container.decode(Bool.self, forKey: .prune)
        maxBytes = try container.decodeIfPresent(Int.self, forKey: .maxBytes, in: Self.maxBytesRange)
    }

    /// Registers `books.parse`, reading exports below `assetsRoot`.
    public static func register(in registry: JobRegistry, assetsRoot: URL, timeout: Double = 300) {
        registry.register(BookParseJob.self, timeout: timeout) { parameters, context in
            try await run(parameters, context: context, assetsRoot: assetsRoot)
        }
    }

    static func run(_ parameters: BookParseJob, context: JobContext, assetsRoot: URL) async throws -> BookImportReport {
        guard let productionID = context.productionID else {
            throw JobError.permanent("\(kind): the job belongs to no production")
        }
        guard !parameters.sourcePath.hasPrefix("/"), !parameters.sourcePath.split(separator: "/").contains("..") else {
            throw JobError.permanent("\(kind): sourcePath must be relative to the asset root: \(parameters.sourcePath)")
        }
        let maxBytes = parameters.maxBytes ?? CSVReader.defaultMaxBytes
        guard maxBytesRange.contains(maxBytes) else {
            throw JobError.invalidParameter(kind: kind, field: "maxBytes",
                                            reason: "must be between 1 and \(maxBytesRange.upperBound), not \(maxBytes)")
        }
        let store = try AssetStore(root: assetsRoot)
        let data: Data
        // Checked against the limit before it is read, never more than the limit read.
        do { data = try await store.read(parameters.sourcePath, maxBytes: maxBytes) } catch let error as AssetError {
            if error.isRetryable { throw error }
            throw JobError.permanent("\(kind): \(error.description)")
        }
        let export: BookExport
        do {
            export = try BookExport.read(Array(data), format: parameters.format, maxBytes: maxBytes)
        } catch {
            throw JobError.permanent("\(kind): \(parameters.sourcePath): \(error)")
        }
        let prune = parameters.prune
        context.transactionalResult { connection in
            try BookRows.store(export, productionID: productionID, prune: prune, on: connection)
        }
        // Replaced by the transactional result when the completion commits.
        return BookImportReport(export: export)
    }
}
