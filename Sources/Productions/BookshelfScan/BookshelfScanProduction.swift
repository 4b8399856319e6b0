import ArgumentParser
import Assets
import Foundation
import ProductionKit
import RepartoRuntime

/// The bookshelf scan as a production type: photos of shelves read by a vision model, each spine
/// matched against the catalog and Open Library, the sure matches added and the rest left for a
/// person in `reparto books review`.
public enum BookshelfScanProduction: ProductionType {
    public static let name = "bookshelf-scan"
    public static let noun = "bookshelf scan"

    public static func migrations() throws(MigrationError) -> MigrationLine {
        try BookshelfScanMigrations.line()
    }

    public static func register(in registry: JobRegistry, environment: ProductionEnvironment) {
        BookshelfScanKinds.register(in: registry, environment: environment)
    }

    public static var plans: [any ProductionPlan] { BookshelfScanKinds.plans }

    /// Each scan's photos, kept while the scan exists.
    public static var assetReferences: [AssetReferences] {
        [AssetReferences(owner: noun, pathsSQL: "SELECT path FROM bookshelf_photos")]
    }

    public static func results(of id: UUID, environment: ProductionEnvironment) async throws -> (any ProductionReport)? {
        guard let postgres = environment.postgres else { return nil }
        return try await BookshelfScanClient(postgres: postgres, assetsRoot: environment.assetsRoot).results(id)
    }

    public static var commands: [any ParsableCommand.Type] { [ScanCommand.self] }
    public static func stageOrder(parameters: Data) -> [String] { ScanRequest.Stage.allCases.map(\.rawValue) }
    public static var benchmarks: [any ParsableCommand.Type] { [BenchScanCommand.self] }
    public static var opsViews: [OpsView] { [OpsView(name: "bookshelf_scans", order: "started_at DESC", title: "Bookshelf scans")] }
}

extension ScanResults: ProductionReport {
    public func text(assetsRoot: URL) -> String { ScanText.results(self) }
    public func json() throws -> String { try JSONText.pretty(self) + "\n" }
}
