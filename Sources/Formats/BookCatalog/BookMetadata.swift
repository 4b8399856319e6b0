/// What a book service knows of a book, in the catalog's terms (the enrich stage stores it).
public struct BookMetadata: Sendable, Hashable, Codable {
    public var title: String
    public var subtitle: String?
    public var authors: [String]
    public var publishers: [String]
    public var publishYear: Int?
    public var pageCount: Int?
    public var subjects: [String]
    /// ISO 639 code as the service gives it ("en", "eng").
    public var language: String?
    public var description: String?
    /// Identifiers by scheme (`isbn_13`, `isbn_10`, `openlibrary`, `google`, …).
    public var identifiers: [String: [String]]
    /// The largest cover image the service names.
    public var coverURL: String?

    public init(title: String, subtitle: String? = nil, authors: [String] = [], publishers: [String] = [],
                publishYear: Int? = nil, pageCount: Int? = nil, subjects: [String] = [], language: String? = nil,
                description: String? = nil, identifiers: [String: [String]] = [:], coverURL: String? = nil) {
        (self.title, self.subtitle, self.authors, self.publishers, self.publishYear, self.pageCount) =
            (title, subtitle, authors, publishers, publishYear, pageCount)
        (self.subjects, self.language, self.description, self.identifiers, self.coverURL) = (subjects, language, description, identifiers, coverURL)
    }

    /// This record with the gaps filled from `other` (a second service's answer).
    public func filled(from other: BookMetadata) -> BookMetadata {
        var merged = self
        if merged.subtitle == nil { merged.subtitle = other.subtitle }
        if merged.authors.isEmpty { merged.authors = other.authors }
        if merged.publishers.isEmpty { merged.publishers = other.publishers }
        if merged.publishYear == nil { merged.publishYear = other.publishYear }
        if merged.pageCount == nil { merged.pageCount = other.pageCount }
        if merged.subjects.isEmpty { merged.subjects = other.subjects }
        if merged.language == nil { merged.language = other.language }
        if merged.description == nil { merged.description = other.description }
        if merged.coverURL == nil { merged.coverURL = other.coverURL }
        for (scheme, values) in other.identifiers where merged.identifiers[scheme] == nil { merged.identifiers[scheme] = values }
        return merged
    }
}

/// Why a service's answer could not be read.
public enum BookServiceResponseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The body is not the JSON shape the service documents (`reason` says where it broke).
    case malformed(service: String, reason: String)

    public var description: String {
        switch self {
        case let .malformed(service, reason): "\(service): unexpected response: \(reason)"
        }
    }
}
