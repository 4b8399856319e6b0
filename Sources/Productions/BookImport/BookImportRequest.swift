import BookCatalog
import Foundation
import RepartoRuntime

/// What a book-import production was asked to do, stored as its `productions.params`.
public struct BookImportRequest: Codable, Sendable, Hashable {
    /// The stages of the `book-import` plan, in order.
    public enum Stage: String, CaseIterable, Sendable {
        case parse, enrich
    }

    /// The plan name stored in `productions.plan`.
    public static let plan = "book-import"

    /// The export, relative to the asset root (content-addressed under `sources/`).
    public var sourcePath: String
    /// The file name as given (for reports).
    public var sourceName: String
    /// The export's format, detected (or checked) at submission.
    public var format: ExportFormat
    /// Remove the library's books that the export no longer holds.
    public var prune: Bool
    public var priority: JobPriority
    /// Ask the book services about the import's books after parsing.
    public var enrich: Bool
    /// Books per `books.enrich` job (fan-out).
    public var booksPerJob: Int

    public init(sourcePath: String, sourceName: String, format: ExportFormat, prune: Bool = false,
                priority: JobPriority = .normal, enrich: Bool = true, booksPerJob: Int = 10) {
        self.enrich = enrich
        self.booksPerJob = booksPerJob
        self.sourcePath = sourcePath
        self.sourceName = sourceName
        self.format = format
        self.prune = prune
        self.priority = priority
    }

    var jobOptions: JobOptions { JobOptions(priority: priority) }
}
