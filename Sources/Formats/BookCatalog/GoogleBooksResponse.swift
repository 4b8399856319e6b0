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

extension GoogleBooksResponse {
    /// A quota Google Books says was used up, read from its error body
    /// (`{"error": {"code": 403, "errors": [{"domain": "usageLimits", "reason": "dailyLimitExceeded"}], …}}`).
    public struct Quota: Sendable, Hashable {
        /// The reason Google gives (`rateLimitExceeded`, `userRateLimitExceeded`,
        /// `dailyLimitExceeded`, `quotaExceeded`, `RATE_LIMIT_EXCEEDED`, `RESOURCE_EXHAUSTED`).
        public var reason: String
        /// A per-day quota (`dailyLimitExceeded`, or "per day" in the message): it comes back at
        /// midnight Pacific time, not in a few seconds.
        public var daily: Bool
        /// Google's message, when it gave one.
        public var message: String?

        /// A quota as Google names it.
        public init(reason: String, daily: Bool, message: String? = nil) {
            (self.reason, self.daily, self.message) = (reason, daily, message)
        }
    }

    struct ErrorAnswer: Decodable {
        struct Body: Decodable {
            struct Item: Decodable { var reason: String?; var message: String? }
            var code: Int?
            var message: String?
            var status: String?
            var errors: [Item]?
            var details: [Item]?
        }
        var error: Body?
    }

    /// The reasons that mean "a quota was used up", not "this request is refused".
    static let quotaReasons: Set<String> = [
        "ratelimitexceeded", "userratelimitexceeded", "dailylimitexceeded", "quotaexceeded", "rate_limit_exceeded",
        "resource_exhausted", "userratelimitexceededunreg",
    ]

    /// The quota an error answer names, or nil when it names none (a key refused, a bad request:
    /// refusals that waiting does not cure). A body that is not Google's error JSON names none.
    public static func quotaError(_ body: [UInt8]) -> Quota? {
        guard let answer = try? JSONDecoder().decode(ErrorAnswer.self, from: Data(body)), let error = answer.error else { return nil }
        let reasons = (error.errors ?? []).compactMap(\.reason) + (error.details ?? []).compactMap(\.reason) + [error.status].compactMap { $0 }
        guard let reason = reasons.first(where: { quotaReasons.contains($0.lowercased()) }) else { return nil }
        let messages = [error.message] + (error.errors ?? []).map(\.message)
        let daily = reasons.contains { $0.lowercased() == "dailylimitexceeded" }
            || messages.contains { $0?.lowercased().contains("per day") == true }
        return Quota(reason: reason, daily: daily, message: error.message)
    }
}
