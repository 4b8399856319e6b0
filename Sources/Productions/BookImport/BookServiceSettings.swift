import Foundation
import RepartoRuntime
import RepartoConfiguration

/// Where the book services are and how to ask them, read through `RepartoConfiguration`.
public struct BookServiceSettings: Sendable {
    /// `REPARTO_OPENLIBRARY_URL` (default `https://openlibrary.org`): a mirror or a stand-in.
    public var openLibraryURL: String
    /// `REPARTO_GOOGLE_BOOKS_URL` (default `https://www.googleapis.com`).
    public var googleBooksURL: String
    /// `GOOGLE_BOOKS_API_KEY` (or `_FILE`, the secret rule): Google Books is asked only when set.
    public var googleBooksKey: Secret?
    /// Sent with every request, as Open Library asks of API clients.
    public var userAgent: String
    /// Seconds a request may take, body included.
    public var timeout: Double
    /// The largest JSON answer accepted.
    public var maxResponseBytes: Int
    /// The largest cover accepted.
    public var maxCoverBytes: Int
    /// How long answers stay in `http_cache`.
    public var isbnTTL: Double
    public var searchTTL: Double

    public static let openLibraryVariable = "REPARTO_OPENLIBRARY_URL"
    public static let googleBooksVariable = "REPARTO_GOOGLE_BOOKS_URL"
    public static let googleBooksKeyVariable = "GOOGLE_BOOKS_API_KEY"

    public init(openLibraryURL: String = "https://openlibrary.org", googleBooksURL: String = "https://www.googleapis.com",
                googleBooksKey: Secret? = nil, userAgent: String = "Reparto/1 (book catalog import; +https://github.com/reparto)",
                timeout: Double = 20, maxResponseBytes: Int = 4 << 20, maxCoverBytes: Int = 5 << 20,
                isbnTTL: Double = 7 * 86_400, searchTTL: Double = 6 * 3_600) {
        (self.openLibraryURL, self.googleBooksURL, self.googleBooksKey, self.userAgent) =
            (Self.trimmed(openLibraryURL), Self.trimmed(googleBooksURL), googleBooksKey, userAgent)
        (self.timeout, self.maxResponseBytes, self.maxCoverBytes, self.isbnTTL, self.searchTTL) =
            (timeout, maxResponseBytes, maxCoverBytes, isbnTTL, searchTTL)
    }

    /// The settings of `configuration` (flags > environment > env file).
    /// - Throws: the secret rule's errors for `GOOGLE_BOOKS_API_KEY`.
    public init(configuration: ConfigurationValues) throws(ConfigurationError) {
        self.init(openLibraryURL: configuration[Self.openLibraryVariable] ?? Self.publicOpenLibraryURL,
                  googleBooksURL: configuration[Self.googleBooksVariable] ?? "https://www.googleapis.com",
                  googleBooksKey: try configuration.secret(Self.googleBooksKeyVariable))
    }

    /// The public Open Library, which asks API clients to stay at a few requests a second.
    public static let publicOpenLibraryURL = "https://openlibrary.org"

    /// The limit an import creates when none of its name exists yet and the workers ask the public
    /// Open Library: a budget of 180 requests a minute (3 a second on average, after a first burst)
    /// under the enrich jobs' key. Nil for a mirror or a stand-in, which set their own terms.
    public var politeLimit: LimitSpec? {
        guard openLibraryURL == Self.publicOpenLibraryURL else { return nil }
        return LimitSpec(name: BookEnrichJob.defaultLimit, budget: 180, budgetWindow: 60)
    }

    private static func trimmed(_ url: String) -> String {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
}
