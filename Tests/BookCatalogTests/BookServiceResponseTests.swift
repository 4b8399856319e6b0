import Testing
@testable import BookCatalog

@Suite("Book service responses", .timeLimit(.minutes(1)))
struct BookServiceResponseTests {
    // Shapes as Open Library and Google Books document them; values written for these tests.
    static let openLibraryEdition = """
        {"ISBN:9780441172719": {"url": "https://openlibrary.org/books/OL1M/dune", "key": "/books/OL1M",
          "title": "Dune", "subtitle": "A novel", "authors": [{"url": "https://openlibrary.org/authors/OL2A", "name": "Frank Herbert"}],
          "number_of_pages": 612, "publishers": [{"name": "Ace Books"}], "publish_date": "August 1990",
          "subjects": [{"name": "Science fiction", "url": "https://openlibrary.org/subjects/science_fiction"}, {"name": "Deserts"}],
          "identifiers": {"isbn_10": ["0441172717"], "isbn_13": ["9780441172719"]},
          "cover": {"small": "https://covers.example/1-S.jpg", "medium": "https://covers.example/1-M.jpg", "large": "https://covers.example/1-L.jpg"}}}
        """

    @Test func anOpenLibraryEdition() throws {
        let metadata = try #require(try OpenLibraryResponse.edition(Array(Self.openLibraryEdition.utf8), isbn13: "9780441172719"))
        #expect(metadata.title == "Dune")
        #expect(metadata.subtitle == "A novel")
        #expect(metadata.authors == ["Frank Herbert"])
        #expect(metadata.publishers == ["Ace Books"])
        #expect(metadata.publishYear == 1990)
        #expect(metadata.pageCount == 612)
        #expect(metadata.subjects == ["Science fiction", "Deserts"])
        #expect(metadata.identifiers["isbn_10"] == ["0441172717"])
        #expect(metadata.identifiers["openlibrary"] == ["OL1M"])
        #expect(metadata.coverURL == "https://covers.example/1-L.jpg")
    }

    @Test func anUnknownISBNIsNotFoundAndGarbageIsMalformed() throws {
        #expect(try OpenLibraryResponse.edition(Array("{}".utf8), isbn13: "9780441172719") == nil)
        #expect(throws: BookServiceResponseError.self) { try OpenLibraryResponse.edition(Array("<html>busy</html>".utf8), isbn13: "9780441172719") }
        // A truncated body is not JSON.
        let truncated = Array(Self.openLibraryEdition.utf8.prefix(120))
        #expect(throws: BookServiceResponseError.self) { try OpenLibraryResponse.edition(truncated, isbn13: "9780441172719") }
    }

    @Test func aSearchMatchNeedsTheSameTitleAndAuthor() throws {
        let body = Array("""
            {"numFound": 2, "start": 0, "docs": [
              {"key": "/works/OL9W", "title": "Dune Messiah", "author_name": ["Frank Herbert"], "isbn": ["9780593098233"]},
              {"key": "/works/OL1W", "title": "Dune", "author_name": ["Frank Herbert"], "first_publish_year": 1965,
               "isbn": ["bogus", "0441172717"], "language": ["eng"], "number_of_pages_median": 604, "subject": ["Fiction"]}]}
            """.utf8)
        let match = try #require(try OpenLibraryResponse.searchMatch(body, title: "Dune (Dune, #1)", author: "Herbert, Frank"))
        #expect(match.metadata.title == "Dune")
        #expect(match.metadata.publishYear == 1965)
        #expect(match.metadata.identifiers["openlibrary_work"] == ["OL1W"])
        #expect(match.isbn13 == "9780441172719")
        #expect(try OpenLibraryResponse.searchMatch(body, title: "Dune", author: "Someone Else") == nil)
        #expect(try OpenLibraryResponse.searchMatch(Array(#"{"numFound": 0, "docs": []}"#.utf8), title: "Dune", author: nil) == nil)
    }

    @Test func searchResultsBecomeCandidates() throws {
        // The fields BookSearch names (key,title,subtitle,author_name,first_publish_year,isbn,cover_i,publisher).
        let body = Array("""
            {"numFound": 3, "start": 0, "docs": [
              {"key": "/works/OL893415W", "title": "Dune", "author_name": ["Frank Herbert"], "first_publish_year": 1965,
               "isbn": ["bogus", "0441172717", "9780441013593", "9780441013590"], "cover_i": 11481354,
               "publisher": ["Chilton Books", "Ace Books"]},
              {"key": "/works/OL9W", "title": "Dune", "subtitle": "The Graphic Novel", "author_name": ["Brian Herbert", "Kevin J. Anderson"],
               "isbn": ["1419731491"]},
              {"key": "/works/OL0W", "author_name": ["Nobody"]},
              {"key": "/works/OL7W", "title": "Dune Messiah", "subtitle": " ", "cover_i": -1}]}
            """.utf8)
        let candidates = try OpenLibraryResponse.searchCandidates(body)
        #expect(candidates == [
            BookCandidate(title: "Dune", authors: ["Frank Herbert"], year: 1965, isbn13: "9780441013593",
                          openLibraryKey: "/works/OL893415W", coverID: 11_481_354, publisher: "Chilton Books"),
            BookCandidate(title: "Dune", subtitle: "The Graphic Novel", authors: ["Brian Herbert", "Kevin J. Anderson"],
                          isbn13: "9781419731495", openLibraryKey: "/works/OL9W"),
            BookCandidate(title: "Dune Messiah", openLibraryKey: "/works/OL7W"),
        ])
        #expect(candidates[1].fullTitle == "Dune: The Graphic Novel")
        #expect(try OpenLibraryResponse.searchCandidates(Array(#"{"numFound": 0, "docs": []}"#.utf8)).isEmpty)
        #expect(throws: BookServiceResponseError.self) { try OpenLibraryResponse.searchCandidates(Array("<html>".utf8)) }
    }

    @Test func aGoogleBooksVolume() throws {
        let body = Array("""
            {"kind": "books#volumes", "totalItems": 1, "items": [{"kind": "books#volume", "id": "abc123",
              "volumeInfo": {"title": "Dune", "authors": ["Frank Herbert"], "publisher": "Penguin", "publishedDate": "2005-08-02",
                "description": "A desert planet.", "industryIdentifiers": [{"type": "ISBN_13", "identifier": "9780441172719"},
                {"type": "ISBN_10", "identifier": "0441172717"}], "pageCount": 604, "categories": ["Fiction"], "language": "en",
                "imageLinks": {"smallThumbnail": "http://books.example/s", "thumbnail": "http://books.example/t"}}}]}
            """.utf8)
        let metadata = try #require(try GoogleBooksResponse.volume(body))
        #expect(metadata.publishYear == 2005)
        #expect(metadata.description == "A desert planet.")
        #expect(metadata.identifiers["isbn_13"] == ["9780441172719"])
        #expect(metadata.identifiers["google"] == ["abc123"])
        #expect(metadata.language == "en")
        #expect(metadata.coverURL == "http://books.example/t")
        #expect(try GoogleBooksResponse.volume(Array(#"{"kind": "books#volumes", "totalItems": 0}"#.utf8)) == nil)
        #expect(throws: BookServiceResponseError.self) { try GoogleBooksResponse.volume(Array("[1,2]".utf8)) }
    }

    @Test func fillingGapsKeepsTheFirstAnswer() {
        let first = BookMetadata(title: "Dune", authors: ["Frank Herbert"], pageCount: 612)
        let second = BookMetadata(title: "DUNE", authors: ["F. Herbert"], pageCount: 1, description: "desc", coverURL: "u")
        let merged = first.filled(from: second)
        #expect(merged.title == "Dune")
        #expect(merged.authors == ["Frank Herbert"])
        #expect(merged.pageCount == 612)
        #expect(merged.description == "desc")
        #expect(merged.coverURL == "u")
    }

    @Test func imagesAreToldByTheirFirstBytes() {
        #expect(ImageKind.sniff([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]) == .jpeg)
        #expect(ImageKind.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]) == .png)
        #expect(ImageKind.sniff(Array("GIF89a....".utf8)) == .gif)
        #expect(ImageKind.sniff(Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)) == .webp)
        #expect(ImageKind.sniff(Array("<!DOCTYPE html>".utf8)) == nil)
        #expect(ImageKind.sniff([0xFF, 0xD8]) == nil)
        #expect(ImageKind.sniff([]) == nil)
    }
}
