import Assets
import BookCatalog
import Foundation
import Jobs
import Postgres

/// The parse stage of a book import: reads the export from the asset volume, merges its
/// duplicates and stores its books, authors and rows in the completion transaction, so a
/// redelivered or retried job never stores an export twice.
public struct BookParseJob: JobParameters {
    public static let kind = "books.parse"
    public static let queue = "books"

    /// The export, relative to the asset root.
    public var sourcePath: String
    public var format: ExportFormat
    /// Remove library books the export no longer holds.
    public var prune: Bool
    /// The size limit the export was checked against at submission (nil: the reader's default).
    public var maxBytes: Int?

    public init(sourcePath: String, format: ExportFormat, prune: Bool, maxBytes: Int? = nil) {
        self.sourcePath = sourcePath
        self.format = format
        self.prune = prune
        self.maxBytes = maxBytes
    }

    /// Registers `books.parse`, reading exports below `assetsRoot`.
    public static func register(in registry: JobRegistry, assetsRoot: URL, timeout: Double = 300) {
        registry.register(BookParseJob.self, timeout: timeout) { parameters, context in
            try await run(parameters, context: context, assetsRoot: assetsRoot)
        }
    }

    static func run(_ parameters: BookParseJob, context: JobContext, assetsRoot: URL) async throws -> BookImportReport {
        guard let productionID = context.productionID else {
            throw JobError.permanent("books.parse: the job belongs to no production")
        }
        guard !parameters.sourcePath.hasPrefix("/"), !parameters.sourcePath.split(separator: "/").contains("..") else {
            throw JobError.permanent("books.parse: sourcePath must be relative to the asset root: \(parameters.sourcePath)")
        }
        let store = try AssetStore(root: assetsRoot)
        let data: Data
        do { data = try await store.read(parameters.sourcePath) } catch let error as AssetError {
            if error.isRetryable { throw error }
            throw JobError.permanent("books.parse: \(error.description)")
        }
        let export: BookExport
        do {
            export = try BookExport.read(Array(data), format: parameters.format,
                                         maxBytes: parameters.maxBytes ?? CSVReader.defaultMaxBytes)
        } catch {
            throw JobError.permanent("books.parse: \(parameters.sourcePath): \(error)")
        }
        let prune = parameters.prune
        context.transactionalResult { connection in
            try BookRows.store(export, productionID: productionID, prune: prune, on: connection)
        }
        // Replaced by the transactional result when the completion commits.
        return BookImportReport(export: export)
    }
}
