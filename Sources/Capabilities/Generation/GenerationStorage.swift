import Assets
import Foundation
import Postgres
import Threading

/// Where the generation kinds read stored results and write files: the database for reuse
/// look-ups (none without one), the asset volume for images and long texts.
struct GenerationStorage: Sendable {
    let postgres: PostgresClient?
    let assetsRoot: URL

    /// The stored rows among `keys`; empty without a database.
    func lookup(_ keys: [String]) async throws -> [String: GeneratedContent] {
        guard let postgres, !keys.isEmpty else { return [:] }
        return try await postgres.withConnection { try GenerationRows.lookup(keys, on: $0) }
    }

    /// The asset store, opened off the cooperative pool (creating the root touches the file system).
    func store() async throws -> AssetStore {
        let root = assetsRoot
        return try await BlockingWork.run { try AssetStore(root: root) }
    }

    /// True when a stored row's file (if it has one) is still on the volume.
    func isComplete(_ content: GeneratedContent) async throws -> Bool {
        guard let path = content.filePath else { return true }
        let store = try await store()
        return try await BlockingWork.run { store.exists(path) }
    }
}
