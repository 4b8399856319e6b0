import Assets
import BookCatalog
import Foundation
import RepartoRuntime
import Logging
import Postgres
import Threading

/// Imports reading-list exports as `book-import` productions and reads the catalog: the producer
/// side of the book import, for the CLI and for services that embed it.
///
/// ```swift
/// let books = BookImportClient(postgres: pool, assetsRoot: URL(fileURLWithPath: "/srv/reparto/assets"))
/// let id = try await books.submit(file: URL(fileURLWithPath: "goodreads_library_export.csv"))
/// _ = try await JobClient(postgres: pool).awaitProduction(id, timeout: 600)
/// let report = try await books.results(id)?.report
/// ```
public struct BookImportClient: Sendable {
    public let postgres: PostgresClient
    public let assetsRoot: URL

    public init(postgres: PostgresClient, assetsRoot: URL) {
        self.postgres = postgres
        self.assetsRoot = assetsRoot
    }

    /// Options of one import.
    public struct Options: Sendable {
        /// nil detects the format from the header row.
        public var format: ExportFormat?
        /// The production's name (default: the file's name).
        public var name: String?
        /// Remove library books the export no longer holds.
        public var prune: Bool
        public var priority: JobPriority
        /// The largest export accepted.
        public var maxBytes: Int
        /// Ask the book services about the books after parsing.
        public var enrich: Bool
        /// Books per enrich job (1 to 100).
        public var booksPerJob: Int

        /// A limit created with the import when none of its name exists
        /// (``BookServiceSettings/politeLimit`` for the public Open Library).
        public var politeness: LimitSpec?

        public init(format: ExportFormat? = nil, name: String? = nil, prune: Bool = false, priority: JobPriority = .normal,
                    maxBytes: Int = CSVReader.defaultMaxBytes, enrich: Bool = true, booksPerJob: Int = 10,
                    politeness: LimitSpec? = nil) {
            (self.politeness, self.enrich, self.booksPerJob, self.format, self.name, self.prune, self.priority, self.maxBytes)
                = (politeness, enrich, booksPerJob, format, name, prune, priority, maxBytes)
        }
    }

    /// Reads and checks the export, copies it to the asset volume (content-addressed) and creates
    /// the production with its parse job in one transaction (and the limit ``Options/politeness``
    /// names, when absent). Returns the production id. An import to enrich also schedules the
    /// hourly prune of the shared cache (``HTTPCachePruneJob``) when no schedule of its name exists.
    ///
    /// - Throws: ``BookImportError`` for a file that cannot be read or is not an export of a
    ///   known (or the named) format; nothing is created then.
    public func submit(file: URL, options: Options = Options()) async throws -> UUID {
        guard (1...100).contains(options.booksPerJob) else { throw BookImportError.invalidOption("books per job must be between 1 and 100") }
        guard BookParseJob.maxBytesRange.contains(options.maxBytes) else {
            throw BookImportError.invalidOption("the size limit must be between 1 and \(BookParseJob.maxBytesRange.upperBound) bytes")
        }
        let root = assetsRoot
        let (sourcePath, format) = try await BlockingWork.run { () throws -> (String, ExportFormat) in
            let size: Int
            do { size = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0 } catch {
                throw BookImportError.unreadable(file.path, reason: (error as NSError).localizedDescription)
            }
            if size > options.maxBytes {
                throw BookImportError.notAnExport(file.path, .csv(.tooLarge(size: size, limit: options.maxBytes)))
            }
            let data: Data
            do { data = try Data(contentsOf: file) } catch {
                throw BookImportError.unreadable(file.path, reason: (error as NSError).localizedDescription)
            }
            let export: BookExport
            do { export = try BookExport.read(Array(data), format: options.format, maxBytes: options.maxBytes) } catch let error as ExportReadError {
                throw BookImportError.notAnExport(file.path, error)
            }
            return (try AssetStore(root: root).storeSourceBlocking(data, extension: "csv", mimeType: "text/csv"), export.format)
        }
        let request = BookImportRequest(sourcePath: sourcePath, sourceName: file.lastPathComponent, format: format,
                                        prune: options.prune, priority: options.priority, enrich: options.enrich,
                                        booksPerJob: options.booksPerJob)
        let parse = BookParseJob(sourcePath: sourcePath, format: format, prune: options.prune,
                                 maxBytes: options.maxBytes == CSVReader.defaultMaxBytes ? nil : options.maxBytes)
        let politeness = options.enrich ? options.politeness : nil
        let jobs = JobClient(postgres: postgres)
        let id = try await jobs.startProduction(
            name: options.name ?? file.lastPathComponent, plan: BookImportRequest.plan, stage: BookImportRequest.Stage.parse.rawValue,
            request: request, firstJob: parse, options: request.jobOptions
        ) { id, connection in
            try BookRows.create(productionID: id, request: request, on: connection)
            if let politeness { _ = try JobClient.addLimitIfAbsent(politeness, in: connection) }
        }
        // The shared cache's hourly prune, when nothing scheduled it yet (a coordinator may keep
        // it at another cadence); the import does not depend on it.
        if options.enrich { try? await HTTPCachePruneJob.scheduleIfAbsent(client: jobs) }
        return id
    }

    /// Follows the import until it finishes (progress through `onProgress`), then returns its results.
    public func awaitResults(_ id: UUID, timeout: Double, logger: Logger,
                             onProgress: @escaping @Sendable (ProductionProgress) -> Void) async throws -> BookImportResults? {
        _ = try await JobClient(postgres: postgres).awaitProduction(id, timeout: timeout, logger: logger, onProgress: onProgress)
        return try await results(id)
    }

    /// The import's state and report (nil when `id` is not a book import).
    public func results(_ id: UUID) async throws -> BookImportResults? {
        try await postgres.withConnection { connection in try BookCatalogRows.results(id, on: connection) }
    }

    /// Catalog books whose title, author or ISBN-13 holds `search` (all when nil), by title.
    public func books(search: String? = nil, limit: Int = 1000) async throws -> [CatalogBook] {
        try await postgres.withConnection { connection in try BookCatalogRows.list(search: search, limit: limit, on: connection) }
    }

    /// One book by catalog id or ISBN (10 or 13, any spelling), with the rows that named it.
    public func book(_ key: String) async throws -> CatalogBookDetails? {
        let id = UUID(uuidString: key)
        let isbn13 = ISBN.normalized(ISBN.clean(key))
        guard id != nil || isbn13 != nil else { throw BookImportError.invalidKey(key) }
        return try await postgres.withConnection { connection in
            try BookCatalogRows.details(id: id, isbn13: isbn13, on: connection)
        }
    }
}

/// Why an import could not be started, or a book looked up.
public enum BookImportError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(String, reason: String)
    case notAnExport(String, ExportReadError)
    /// `books show` was given something that is neither a catalog id nor a valid ISBN.
    case invalidKey(String)
    case invalidOption(String)

    public var description: String {
        switch self {
        case let .unreadable(path, reason): "cannot read \(path): \(reason)"
        case let .notAnExport(path, error): "\(path): \(error.description)"
        case let .invalidKey(key): "'\(key)' is neither a book id nor a valid ISBN"
        case let .invalidOption(reason): reason
        }
    }
}
