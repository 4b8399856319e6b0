import BookCatalog
import Foundation
import RepartoRuntime
import RepartoConfiguration

/// Where the book services are and how to ask them, read through `RepartoConfiguration`.
public struct BookServiceSettings: Sendable {
    /// `REPARTO_OPENLIBRARY_URL` (default `https://openlibrary.org`): a mirror or a stand-in.
    public var openLibraryURL: String
    /// `REPARTO_OPENLIBRARY_COVERS_URL`: where covers are fetched by their id (`/b/id/<id>-L.jpg`).
    /// Default `https://covers.openlibrary.org` for the public Open Library, else the mirror's own URL.
    public var openLibraryCoversURL: String
    /// `REPARTO_GOOGLE_BOOKS_URL` (default `https://www.googleapis.com`).
    public var googleBooksURL: String
    /// `GOOGLE_BOOKS_API_KEY` (or `_FILE`, the secret rule): Google Books is asked only when set.
    public var googleBooksKey: Secret?
    /// `REPARTO_OPENLIBRARY_CONTACT`: an e-mail address or URL Open Library can reach the operator
    /// at. It goes into the User-Agent, and Open Library then allows 3 requests a second instead
    /// of 1 (``defaultLimits``). Control characters and parentheses are dropped.
    public var contact: String?
    /// Sent with every request, as Open Library asks of API clients: the product, and the
    /// ``contact`` when there is one.
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
    /// ``openLibraryCoversURL``'s variable.
    public static let openLibraryCoversVariable = "REPARTO_OPENLIBRARY_COVERS_URL"
    /// ``contact``'s variable.
    public static let contactVariable = "REPARTO_OPENLIBRARY_CONTACT"
    public static let googleBooksVariable = "REPARTO_GOOGLE_BOOKS_URL"
    public static let googleBooksKeyVariable = "GOOGLE_BOOKS_API_KEY"

    /// The User-Agent without a contact.
    public static let product = "Reparto/1 (book catalog import; +https://github.com/reparto)"

    /// Settings as given; `userAgent` gets the `contact` (cleaned) when there is one, and
    /// `openLibraryCoversURL` defaults as ``openLibraryCoversURL`` says.
    public init(openLibraryURL: String = "https://openlibrary.org", googleBooksURL: String = "https://www.googleapis.com",
                googleBooksKey: Secret? = nil, userAgent: String = BookServiceSettings.product,
                timeout: Double = 20, maxResponseBytes: Int = 4 << 20, maxCoverBytes: Int = 5 << 20,
                isbnTTL: Double = 7 * 86_400, searchTTL: Double = 6 * 3_600, contact: String? = nil,
                openLibraryCoversURL: String? = nil) {
        let openLibrary = Self.trimmed(openLibraryURL)
        (self.openLibraryURL, self.googleBooksURL, self.googleBooksKey) = (openLibrary, Self.trimmed(googleBooksURL), googleBooksKey)
        self.openLibraryCoversURL = openLibraryCoversURL.map(Self.trimmed)
            ?? (openLibrary == Self.publicOpenLibraryURL ? OpenLibraryResponse.publicCoversURL : openLibrary)
        let contact = contact.flatMap(Self.cleanContact)
        self.contact = contact
        self.userAgent = contact.map { Self.userAgent(userAgent, contact: $0) } ?? userAgent
        (self.timeout, self.maxResponseBytes, self.maxCoverBytes, self.isbnTTL, self.searchTTL) =
            (timeout, maxResponseBytes, maxCoverBytes, isbnTTL, searchTTL)
    }

    /// The settings of `configuration` (flags > environment > env file).
    /// - Throws: the secret rule's errors for `GOOGLE_BOOKS_API_KEY`.
    public init(configuration: ConfigurationValues) throws(ConfigurationError) {
        self.init(openLibraryURL: configuration[Self.openLibraryVariable] ?? Self.publicOpenLibraryURL,
                  googleBooksURL: configuration[Self.googleBooksVariable] ?? "https://www.googleapis.com",
                  googleBooksKey: try configuration.secret(Self.googleBooksKeyVariable),
                  contact: configuration[Self.contactVariable], openLibraryCoversURL: configuration[Self.openLibraryCoversVariable])
    }

    /// The public Open Library, whose limits are the defaults (``defaultLimits``).
    public static let publicOpenLibraryURL = "https://openlibrary.org"

    /// Whether the workers ask the public Open Library (not a mirror or a stand-in).
    public var asksPublicOpenLibrary: Bool { openLibraryURL == Self.publicOpenLibraryURL }

    /// The limit on Open Library's API (`/api/books`, `/search.json`): ``BookEnrichJob/defaultLimit``.
    public static let openLibraryLimit = BookEnrichJob.defaultLimit
    /// The limit on covers looked up by ISBN (or another key than their id), and the limit
    /// follow-up cover jobs run under.
    public static let coversLimit = "books:openlibrary-covers"
    /// The limit follow-up Google Books jobs run under (none by default: Google's quotas are the
    /// project's, set in its console).
    public static let googleBooksLimit = "books:google-books"

    /// Open Library's own terms as limits: its API at 1 request a second (3 with a contact in the
    /// User-Agent) as a budget of requests a minute, at most two jobs asking at once; covers
    /// looked up by ISBN at 100 per 5 minutes (covers fetched by id are not limited that way).
    /// The enrich jobs count requests against the budgets, and every request is spaced by them
    /// (``BookServicePacer``). `speedup` scales them for a benchmark's stand-in.
    public static func openLibraryLimits(contact: Bool, speedup: Double = 1) -> [LimitSpec] {
        let perSecond = (contact ? 3.0 : 1.0) * speedup
        return [
            LimitSpec(name: openLibraryLimit, concurrency: 2, budget: perSecond * 60, budgetWindow: 60),
            LimitSpec(name: coversLimit, concurrency: 1, budget: 100, budgetWindow: 300 / speedup),
        ]
    }

    /// The limits created when none of their names exists, whenever the workers ask the public
    /// Open Library: by an import, a review's accept, and every enrich job before it asks (so a
    /// job enqueued by any producer is paced). An operator's own limit is never replaced; one
    /// that is exactly the other default (1/s without a contact, 3/s with one) is ours, and
    /// follows the contact. Empty for a mirror or a stand-in, which set their own terms.
    public var defaultLimits: [LimitSpec] {
        asksPublicOpenLibrary ? Self.openLibraryLimits(contact: contact != nil) : []
    }

    /// The API limit of ``defaultLimits`` (nil for a mirror or a stand-in): what an import and a
    /// review's accept create if absent.
    public var politeLimit: LimitSpec? {
        defaultLimits.first { $0.name == Self.openLibraryLimit }
    }

    /// A default limit whose spec is one of ours (either contact variant): replaced when the
    /// contact changes, unlike an operator's.
    static func isDefault(_ spec: LimitSpec) -> Bool {
        (openLibraryLimits(contact: false) + openLibraryLimits(contact: true)).contains(spec)
    }

    /// The contact as it may go into a header: printable, without parentheses; nil when empty.
    static func cleanContact(_ text: String) -> String? {
        let kept = text.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F && $0 != "(" && $0 != ")" }
        let cleaned = String(String.UnicodeScalarView(kept)).trimmingCharacters(in: .whitespaces)
        return cleaned.isEmpty ? nil : cleaned
    }

    /// `Reparto/1 (book catalog import; +https://github.com/reparto; ops@example.org)`.
    static func userAgent(_ base: String, contact: String) -> String {
        base.hasSuffix(")") ? String(base.dropLast()) + "; \(contact))" : "\(base) (\(contact))"
    }

    private static func trimmed(_ url: String) -> String {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
}
