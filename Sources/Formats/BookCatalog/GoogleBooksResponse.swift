import Foundation

/// Reads Google Books' `/books/v1/volumes?q=isbn:…` answer (`totalItems` 0 and no `items` when
/// the book is unknown).
public enum GoogleBooksResponse {
    struct Answer: Decodable {
        struct Item: Decodable {
            struct Info: Decodable {
                struct Identifier: Decodable { var type: String?; var identifier: String? }
                struct Images: Decodable {
                    var smallThumbnail: String?; var thumbnail: String?; var small: String?; var medium: String?; var large: String?
                }
                var title: String?
                var subtitle: String?
                var authors: [String]?
                var publisher: String?
                var publishedDate: String?
                var description: String?
                var industryIdentifiers: [Identifier]?
                var pageCount: Int?
                var categories: [String]?
                var language: String?
                var imageLinks: Images?
            }
            var id: String?
            var volumeInfo: Info?
        }
        var totalItems: Int?
        var items: [Item]?
    }

    /// The first volume of the answer, or nil when there is none (not found).
    public static func volume(_ body: [UInt8]) throws(BookServiceResponseError) -> BookMetadata? {
        let answer: Answer
        do { answer = try JSONDecoder().decode(Answer.self, from: Data(body)) } catch {
            throw .malformed(service: "google-books", reason: "not a volumes answer (\(body.count) bytes)")
        }
        guard let item = answer.items?.first, let info = item.volumeInfo, let title = info.title, !title.isEmpty else { return nil }
        var identifiers: [String: [String]] = [:]
        for identifier in info.industryIdentifiers ?? [] {
            guard let type = identifier.type, let value = identifier.identifier else { continue }
            identifiers[type.lowercased(), default: []].append(value)
        }
        if let id = item.id { identifiers["google"] = [id] }
        let images = info.imageLinks
        return BookMetadata(
            title: title, subtitle: info.subtitle, authors: info.authors ?? [], publishers: info.publisher.map { [$0] } ?? [],
            publishYear: info.publishedDate.flatMap(OpenLibraryResponse.year(in:)), pageCount: info.pageCount.flatMap { $0 > 0 ? $0 : nil },
            subjects: info.categories ?? [], language: info.language, description: info.description, identifiers: identifiers,
            coverURL: images.flatMap { $0.large ?? $0.medium ?? $0.small ?? $0.thumbnail ?? $0.smallThumbnail })
    }
}
