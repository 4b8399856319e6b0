import Assets
import Foundation
import Logging
import Postgres
import RepartoRuntime
import Threading

/// Submits bookshelf scans and reads their results: the producer side, for the CLI and for
/// services that embed it.
///
/// ```swift
/// let scans = BookshelfScanClient(postgres: pool, assetsRoot: URL(fileURLWithPath: "/srv/reparto/assets"))
/// let id = try await scans.submit(photos: [URL(fileURLWithPath: "shelf.jpg")], options: .init(visionProvider: "openai"))
/// let results = try await scans.awaitResults(id, timeout: 600, logger: logger) { _ in }
/// ```
public struct BookshelfScanClient: Sendable {
    public let postgres: PostgresClient
    public let assetsRoot: URL

    public init(postgres: PostgresClient, assetsRoot: URL) {
        (self.postgres, self.assetsRoot) = (postgres, assetsRoot)
    }

    /// Options of one scan.
    public struct Options: Sendable {
        public var visionProvider: String
        public var model: String?
        /// The production's name (default: the first photo's file name, and how many there are).
        public var name: String?
        public var priority: JobPriority
        /// Read every photo again even when the same image was read before.
        public var fresh: Bool

        public init(visionProvider: String, model: String? = nil, name: String? = nil, priority: JobPriority = .normal, fresh: Bool = false) {
            (self.visionProvider, self.model, self.name, self.priority, self.fresh) = (visionProvider, model, name, priority, fresh)
        }
    }

    /// Most photos one scan may hold.
    public static let maxPhotos = 500

    /// Checks every photo (a JPEG, PNG or WebP within ``PhotoFile`` limits, sized before it is
    /// read), copies each to the asset volume (content-addressed) and creates the production with
    /// one read job per photo, in one transaction. Returns the production id.
    /// - Throws: ``ScanError`` for an unreadable file, one that is not an image, or bad options:
    ///   nothing is created then.
    public func submit(photos: [URL], options: Options) async throws -> UUID {
        guard !photos.isEmpty else { throw ScanError.noPhotos }
        guard photos.count <= Self.maxPhotos else { throw ScanError.tooManyPhotos(photos.count, limit: Self.maxPhotos) }
        guard !options.visionProvider.isEmpty else { throw ScanError.invalidOption("a vision provider is needed") }
        let root = assetsRoot
        let stored = try await BlockingWork.run { () throws -> [StoredPhoto] in
            let checked = try photos.map { try Self.check($0) }  // every photo, before any is stored
            let store = try AssetStore(root: root)
            return try checked.map { file, data, photo in
                let path = try store.storeSourceBlocking(data, extension: photo.format == .jpeg ? "jpg" : photo.format.rawValue,
                                                         mimeType: photo.format.mediaType)
                let upright = photo.uprightSize
                return StoredPhoto(sourceName: file.lastPathComponent, path: path, sha256: AssetStore.sha256(data),
                                   width: upright.width, height: upright.height)
            }
        }
        let request = ScanRequest(visionProvider: options.visionProvider, model: options.model, priority: options.priority,
                                  fresh: options.fresh)
        let id = UUID.timeOrdered()
        let name = options.name ?? (photos.count == 1 ? photos[0].lastPathComponent : "\(photos[0].lastPathComponent) and \(photos.count - 1) more")
        let parameters = try JSONEncoder().encode(request)
        let jobs = try stored.indices.map { index in
            try JobRequest(ReadShelfJob(productionID: id, photo: index, visionProvider: request.visionProvider, model: request.model,
                                        fresh: request.fresh ? true : nil),
                           options: request.jobOptions(productionID: id, stage: .read))
        }
        try await postgres.withTransaction { connection in
            _ = try JobClient.createProduction(id: id, name: name, plan: ScanRequest.plan, stage: ScanRequest.Stage.read.rawValue,
                                               parameters: parameters, in: connection)
            try ScanRows.create(id, request: request, photos: stored, on: connection)
            try JobClient.enqueue(jobs, in: connection)
        }
        return id
    }

    /// The file at `url`, its bytes and what they are; the size is checked before reading.
    @available(*, noasync)
    static func check(_ url: URL) throws(ScanError) -> (URL, Data, PhotoFile) {
        let name = url.path
        let size: Int
        do { size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0 } catch {
            throw .photo(.unreadable(name, reason: (error as NSError).localizedDescription))
        }
        guard size <= PhotoFile.maxBytes else { throw .photo(.tooLarge(name, bytes: size, limit: PhotoFile.maxBytes)) }
        guard size > 0 else { throw .photo(.notAnImage(name)) }
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw .photo(.unreadable(name, reason: (error as NSError).localizedDescription)) }
        guard data.count <= PhotoFile.maxBytes else { throw .photo(.tooLarge(name, bytes: data.count, limit: PhotoFile.maxBytes)) }
        do { return (url, data, try PhotoFile.inspect(Array(data), name: name)) } catch { throw .photo(error) }
    }

    /// Follows the scan until it finishes (progress through `onProgress`), then returns its results.
    public func awaitResults(_ id: UUID, timeout: Double, logger: Logger,
                             onProgress: @escaping @Sendable (ProductionProgress) -> Void) async throws -> ScanResults? {
        _ = try await JobClient(postgres: postgres).awaitProduction(id, timeout: timeout, logger: logger, onProgress: onProgress)
        return try await results(id)
    }

    /// The scan's photos, spines and what each became (nil when `id` is not a scan).
    public func results(_ id: UUID) async throws -> ScanResults? {
        try await postgres.withConnection { connection in try ScanResults.load(id, on: connection) }
    }
}

/// Why a scan could not be started.
public enum ScanError: Error, Sendable, Equatable, CustomStringConvertible {
    case noPhotos
    case tooManyPhotos(Int, limit: Int)
    case photo(PhotoError)
    case invalidOption(String)

    public var description: String {
        switch self {
        case .noPhotos: "no photo given"
        case let .tooManyPhotos(count, limit): "\(count) photos: a scan takes at most \(limit)"
        case let .photo(error): error.description
        case let .invalidOption(reason): reason
        }
    }
}
