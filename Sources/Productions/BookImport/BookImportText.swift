import TerminalText
import BookCatalog
import Foundation
import TextEscaping

/// How an import's report and the book catalog read on a terminal.
public enum BookImportText {
    /// `import --wait` and `results ID`: the state, the counts, the merges, the problems, the missing books.
    public static func report(_ r: BookImportResults) -> String {
        var lines: [String] = []
        lines.append("import      \(r.productionID.uuidString.lowercased())  \(r.name)")
        lines.append("state       \(r.state) (stage \(r.stage))")
        lines.append("source      \(r.sourceName)")
        if let report = r.report {
            lines.append("format      \(report.format.rawValue)")
            lines.append("rows        \(report.rows) read, \(report.books) books")
            lines.append("catalog     \(report.added) added, \(report.updated) already there (updated)")
            lines.append("merged      \(report.mergedDuplicates) duplicate rows")
            lines.append("invalid     \(report.invalidISBNs) invalid ISBNs (kept, flagged)")
            lines.append("problems    \(report.problems.count) rows skipped")
            for merge in report.merges.prefix(20) {
                lines.append("  line \(merge.line) merged into line \(merge.intoLine) (same \(merge.reason == .isbn ? "ISBN-13" : "title and author"))")
            }
            if report.merges.count > 20 { lines.append("  …and \(report.merges.count - 20) more merges (--json)") }
            for problem in report.problems.prefix(20) { lines.append("  \(problem.description)") }
            if report.problems.count > 20 { lines.append("  …and \(report.problems.count - 20) more (--json)") }
            if !report.missing.isEmpty {
                let verb = report.pruned > 0 ? "removed (--prune)" : "kept; --prune removes them"
                lines.append("missing     \(report.missing.count) library books not in this export, \(verb)")
                for book in report.missing.prefix(20) {
                    lines.append("  \(book.isbn13 ?? "no ISBN")  \(book.title)")
                }
            }
        }
        if let e = r.enrichment {
            lines.append("enrichment  \(e.enriched) enriched (\(e.covers) with a cover), \(e.notFound) not found, \(e.failed) failed"
                         + (e.unmatched > 0 ? ", \(e.unmatched) unmatched (reparto books review)" : "")
                         + (e.pending > 0 ? ", \(e.pending) not asked yet" : ""))
            if e.coversPending > 0 {
                lines.append("covers      \(e.coversPending) held back by the covers service, fetched when its limit allows")
            }
        }
        for failure in r.failures.prefix(5) { lines.append("failed      \(failure)") }
        return TerminalSafe.clean(lines.joined(separator: "\n") + "\n")
    }

    /// `books list`: one line per book.
    public static func list(_ books: [CatalogBook]) -> String {
        guard !books.isEmpty else { return "no books\n" }
        return TextTable.render(header: ["ISBN-13", "TITLE", "AUTHORS", "YEAR", "STATUS", "RATING"], rows: books.map { book in
            [book.isbn13 ?? (book.invalidISBNs.first.map { "invalid \($0)" } ?? "-"), book.title,
             book.authors.joined(separator: ", "), book.year.map(String.init) ?? "-",
             book.library?.status ?? "-", book.library?.rating.map { String(format: "%.1f", $0) } ?? "-"]
        })
    }

    /// `books export --csv`: the enriched catalog, one row per book (RFC 4180, CRLF).
    public static func csv(_ books: [CatalogBook]) -> String {
        let header = ["id", "isbn13", "title", "subtitle", "authors", "publishers", "year", "pages", "language", "subjects",
                      "enrich_status", "cover_path", "invalid_isbns", "status", "rating", "shelves", "date_added", "date_read"]
        return CSVWriter.write(header: header, rows: books.map { book in
            [book.id.uuidString.lowercased(), book.isbn13 ?? "", book.title, book.subtitle ?? "", book.authors.joined(separator: "; "),
             book.publishers.joined(separator: "; "), (book.publishYear ?? book.year).map(String.init) ?? "",
             (book.pageCount ?? book.pages).map(String.init) ?? "", book.language ?? "", book.subjects.joined(separator: "; "),
             book.enrichStatus ?? "", book.coverPath ?? "", book.invalidISBNs.joined(separator: "; "), book.library?.status ?? "",
             book.library?.rating.map { String($0) } ?? "", (book.library?.shelves ?? []).joined(separator: "; "),
             book.library?.dateAdded ?? "", book.library?.dateRead ?? ""]
        })
    }

    /// `books show`: one book and the rows that named it.
    public static func details(_ d: CatalogBookDetails) -> String {
        let book = d.book
        var lines: [String] = []
        lines.append("id          \(book.id.uuidString.lowercased())")
        lines.append("title       \(book.title)")
        lines.append("authors     \(book.authors.joined(separator: ", "))")
        lines.append("isbn-13     \(book.isbn13 ?? "-")")
        if !book.invalidISBNs.isEmpty { lines.append("invalid     \(book.invalidISBNs.joined(separator: ", ")) (as the export wrote them)") }
        if let publisher = book.publisher { lines.append("publisher   \(publisher)") }
        if let year = book.year { lines.append("year        \(year)") }
        if let pages = book.pages { lines.append("pages       \(pages)") }
        lines.append("enrichment  \(book.enrichStatus ?? "not enriched")"
                     + (book.enrichPending.isEmpty ? "" : " (waiting for \(book.enrichPending.joined(separator: ", ")))"))
        if let score = book.matchScore {
            lines.append("match       \(String(format: "%.2f", score)): \(book.matchEvidence.joined(separator: "; "))")
        } else if !book.matchEvidence.isEmpty {
            lines.append("match       \(book.matchEvidence.joined(separator: "; "))")
        }
        if let subtitle = book.subtitle { lines.append("subtitle    \(subtitle)") }
        if !book.publishers.isEmpty { lines.append("publishers  \(book.publishers.joined(separator: ", "))") }
        if let year = book.publishYear { lines.append("published   \(year)") }
        if let pages = book.pageCount { lines.append("page count  \(pages)") }
        if let language = book.language { lines.append("language    \(language)") }
        if !book.subjects.isEmpty { lines.append("subjects    \(book.subjects.prefix(8).joined(separator: ", "))") }
        if let cover = book.coverPath { lines.append("cover       \(cover)") }
        if let entry = book.library {
            lines.append("library     \(entry.status)" + (entry.rating.map { ", rated \($0)" } ?? "")
                         + (entry.shelves.isEmpty ? "" : ", shelves \(entry.shelves.joined(separator: ", "))")
                         + (entry.dateRead.map { ", read \($0)" } ?? ""))
        } else {
            lines.append("library     not in the library")
        }
        for row in d.rows {
            var text = "  import \(row.productionID.uuidString.lowercased().prefix(8)) line \(row.line): \(row.status)"
            if let rating = row.rating { text += ", rated \(rating)" }
            if let into = row.mergedIntoLine { text += ", merged into line \(into) (\(row.mergeReason ?? "?"))" }
            if let invalid = row.invalidISBN { text += ", invalid ISBN \(invalid)" }
            lines.append(text)
        }
        return TerminalSafe.clean(lines.joined(separator: "\n") + "\n")
    }
}
