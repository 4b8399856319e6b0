import Assets
import BookCatalog
import Foundation
import HTTPExchange

/// Downloads a book's cover and stores it content-addressed on the asset volume.
///
/// The cover of an Open Library cover id (from a search result's `cover_i`, an edition's
/// `covers`, or a cover URL that names one) is fetched by that id from the configured covers
/// host (`/b/id/<id>-L.jpg`): Open Library limits covers looked up by ISBN to 100 per IP every
/// 5 minutes and answers 403 past that, but not covers fetched by id. Another URL an answer
/// named (a Google Books thumbnail, a mirror's cover) is fetched as it is. A cover the covers
/// service holds back (a 403, a 429, a hold another worker met) is ``Outcome/deferred(_:)``:
/// its book is not failed, and a follow-up job fetches it when the hold ends.
///
/// A cover stored is remembered in `http_cache` under its source URL (``cacheKey(_:)``, the
/// asset's path as the entry's body), so the same cover asked again (another attempt of a job
/// whose books are stored only when it completes, another import of the book) is not downloaded
/// again while its file is on the volume.
struct BookCoverFetcher: Sendable {
    let client: BookServiceClient
    let assetsRoot: URL

    /// What became of a cover.
    enum Outcome: Sendable, Equatable {
        /// Stored at this path (relative to the asset root).
        case stored(String)
        /// No usable cover: missing (an HTTP error), not an image, too large, refused.
        case problem(String)
        /// The covers service said to slow down; try again after the hold.
        case deferred(String)
    }

    /// The URL to fetch a cover from: by its id on the configured covers host when an id is
    /// known (given, or named by `url`), else `url` as the answer gave it; nil when there is none.
    static func source(id: Int?, url: String?, settings: BookServiceSettings) -> String? {
        if let id = id ?? url.flatMap(OpenLibraryResponse.coverID(in:)) {
            return OpenLibraryResponse.coverURL(id: id, base: settings.openLibraryCoversURL)
        }
        return url
    }

    /// How long a stored cover is remembered: an image does not change under its id or URL (the
    /// cache's own age limit, ``HTTPCachePolicy``, still applies).
    static let rememberedFor = 30 * 86_400.0

    /// The `http_cache` key of the cover fetched from `url` (already redacted).
    static func cacheKey(_ url: String) -> String { "cover:\(url)" }

    /// Downloads `url`, checks it is an image by its first bytes, and stores it content-addressed
    /// (`covers/<sha256>.<ext>`): the same image for two books, or twice, is one file. The URL and
    /// every redirect must pass ``CoverSource``: the answer that named it is not trusted.
    /// `sent` is false when no request went out (a refused URL, a held service).
    /// - Throws: only faults a retry may cure (a 5xx, a timeout, a cut-short answer) and cancellation.
    func fetch(_ url: String) async throws -> (outcome: Outcome, sent: Bool) {
        let settings = client.settings
        let source = CoverSource(settings: settings)
        guard let parsed = URL(string: url) else { return (.problem(CoverError.refused("not fetching an unreadable URL").description), false) }
        if let reason = await source.refusal(cover: parsed) {
            let refusal = BookServiceError.refusedURL(service: "covers", url: HTTPExchange.display(parsed), reason: reason)
            return (.problem(CoverError.refused(refusal.description).description), false)
        }
        let redacted = client.redact(url)
        let store = try AssetStore(root: assetsRoot)
        if let hit = try await client.postgres.withConnection({ try HTTPCacheRows.fresh(Self.cacheKey(redacted), on: $0) }),
           hit.status == 200, let path = String(data: hit.body, encoding: .utf8), store.exists(path) {
            return (.stored(path), false)
        }
        let status: Int, body: [UInt8]
        do {
            (status, body) = try await client.fetch(url, service: BookServiceLane.covers.rawValue, limit: settings.maxCoverBytes,
                                                   redirects: source.redirects)
        } catch let error as BookServiceError {
            switch error {
            case .held: return (.deferred(error.description), false)
            case .rateLimited: return (.deferred(error.description), true)
            case _ where !error.isRetryable: return (.problem(CoverError.refused(error.description).description), true)
            default: throw error
            }
        }
        guard status == 200 else { return (.problem(CoverError.missing(status: status).description), true) }
        guard let kind = ImageKind.sniff(body) else { return (.problem(CoverError.notAnImage(bytes: body.count).description), true) }
        let data = Data(body)
        let path = "covers/\(AssetStore.sha256(data)).\(kind.fileExtension)"
        if !store.exists(path) { _ = try await store.write(data, to: path, mimeType: kind.mimeType) }
        try await client.postgres.withConnection { connection in
            try HTTPCacheRows.store(Self.cacheKey(redacted), url: redacted, status: 200, body: Data(path.utf8), ttl: Self.rememberedFor,
                                    on: connection)
        }
        return (.stored(path), true)
    }
}

/// Why a book was enriched without a cover.
enum CoverError: Error, CustomStringConvertible {
    case missing(status: Int)
    case notAnImage(bytes: Int)
    case refused(String)

    var description: String {
        switch self {
        case let .missing(status): "cover: HTTP \(status)"
        case let .notAnImage(bytes): "cover: not an image (\(bytes) bytes of something else)"
        case let .refused(reason): "cover: \(reason)"
        }
    }
}
