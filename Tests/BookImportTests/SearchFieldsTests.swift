import BookCatalog
import Foundation
import Testing
@testable import BookImport

/// Open Library's `/search.json` answers its default fields only unless `fields=` names others
/// (openlibrary/plugins/worksearch/schemes/works.py, `default_fetched_fields`): every search the
/// import makes asks for every field it reads. A stand-in's rule (below) cuts a full doc the way
/// the live service does; what each search reads from the cut answer is what it reads from all.
@Suite(.timeLimit(.minutes(1)))
struct SearchFieldsTests {
    /// The live default fields.
    static let defaultFields: Set<String> = [
        "key", "author_name", "author_key", "title", "subtitle", "edition_count", "ia", "has_fulltext", "first_publish_year",
        "cover_i", "cover_edition_key", "public_scan_b", "lending_edition_s", "lending_identifier_s", "language",
        "ia_collection_s", "ebook_access",
    ]

    static var doc: [String: Any] { [
        "key": "/works/OL893415W", "title": "Dune", "subtitle": "Deluxe Edition", "author_name": ["Frank Herbert"],
        "author_key": ["OL79034A"], "first_publish_year": 1965, "cover_i": 11_481_354, "edition_count": 300, "language": ["eng", "spa"],
        "isbn": ["0441172717", "9780441013593"], "publisher": ["Chilton Books", "Ace"], "number_of_pages_median": 604,
        "subject": ["Science fiction", "Deserts"], "has_fulltext": true, "ebook_access": "borrowable",
    ] }

    /// The answer to a search asking `fields` (nil: none named).
    static func answer(fields: String?) throws -> [UInt8] {
        let wanted = fields.map { Set($0.split(separator: ",").map(String.init)) } ?? defaultFields
        let cut = wanted.contains("*") ? doc : doc.filter { wanted.contains($0.key) }
        return Array(try JSONSerialization.data(withJSONObject: ["numFound": 1, "start": 0, "docs": [cut]]))
    }

    @Test func theEnrichmentSearchAsksForEverythingItReads() throws {
        let all = try OpenLibraryResponse.searchResults(try Self.answer(fields: "*"))
        #expect(all.first?.metadata.publishers == ["Chilton Books", "Ace"] && all.first?.metadata.pageCount == 604)
        #expect(all.first?.metadata.subjects == ["Science fiction", "Deserts"] && all.first?.metadata.identifiers["isbn_13"] == ["9780441013593"])
        #expect(try OpenLibraryResponse.searchResults(try Self.answer(fields: BookEnricher.searchFields)) == all)
        // Without `fields=` the live service leaves out what the import stores.
        let defaults = try OpenLibraryResponse.searchResults(try Self.answer(fields: nil))
        #expect(defaults != all)
        #expect(defaults.first?.metadata.publishers == [] && defaults.first?.candidate.isbn13 == nil)
        #expect(Set(BookEnricher.searchFields.split(separator: ",").map(String.init)) == Set(OpenLibraryResponse.searchFields))
    }

    @Test func theCandidateSearchAsksForEverythingItReads() throws {
        let all = try OpenLibraryResponse.searchCandidates(try Self.answer(fields: "*"))
        #expect(try OpenLibraryResponse.searchCandidates(try Self.answer(fields: BookSearch.fields)) == all)
        #expect(Set(OpenLibraryResponse.candidateFields).isSubset(of: Set(BookSearch.fields.split(separator: ",").map(String.init))))
        #expect(try OpenLibraryResponse.searchCandidates(try Self.answer(fields: nil)) != all)
        #expect(Set(OpenLibraryResponse.candidateFields).isSubset(of: Set(OpenLibraryResponse.searchFields)))
    }
}
