import BookCatalog
import Foundation

/// What the parse stage of an import did: the import's report (`reparto results ID`), stored as
/// the parse job's result and in `book_imports.report`.
public struct BookImportReport: Codable, Sendable, Hashable {
    /// A library book the new export no longer holds.
    public struct MissingBook: Codable, Sendable, Hashable {
        public var id: UUID
        public var title: String
        public var isbn13: String?
    }

    public var format: ExportFormat
    /// Rows read (merged ones included; rows with problems not).
    public var rows: Int
    /// Distinct books in the file after merging duplicates.
    public var books: Int
    /// Books added to the catalog.
    public var added: Int
    /// Books the catalog already had (by ISBN-13, else by title and author), updated.
    public var updated: Int
    /// Rows merged into another row of the same file, and why.
    public var merges: [BookGroup.Merge]
    /// Rows whose ISBN failed its checksum (kept and flagged).
    public var invalidISBNs: Int
    /// Rows left out, with their line numbers.
    public var problems: [RowProblem]
    /// Library books missing from this export.
    public var missing: [MissingBook]
    /// Of ``missing``, how many were removed (only with `--prune`).
    public var pruned: Int

    /// Rows merged as duplicates.
    public var mergedDuplicates: Int { merges.count }
}

extension BookImportReport {
    /// What the file alone says (before the catalog is consulted: nothing added, updated or missing).
    init(export: BookExport) {
        self.init(format: export.format, rows: export.rows.count, books: export.books.count, added: 0, updated: 0,
                  merges: export.books.flatMap(\.merges), invalidISBNs: export.invalidISBNCount,
                  problems: export.problems, missing: [], pruned: 0)
    }
}
