import ArgumentParser
import Assets
import Foundation
import ProductionKit
import RepartoRuntime

/// The book import as a production type: a reading-list export (Goodreads, LibraryThing,
/// StoryGraph) parsed into the book catalog, then enriched from the book services with covers.
public enum BookImportProduction: ProductionType {
    public static let name = "book-import"
    public static let noun = "book import"

    public static func migrations() throws(MigrationError) -> MigrationLine {
        try BookImportMigrations.line()
    }

    public static func register(in registry: JobRegistry, environment: ProductionEnvironment) {
        let configuration = environment.configuration
        // A Google Books key that breaks the secret rule leaves Google Books out here; a worker
        // refuses to start with that line (``secretVariables``).
        let services = (try? BookServiceSettings(configuration: configuration)) ?? BookServiceSettings(
            openLibraryURL: configuration[BookServiceSettings.openLibraryVariable] ?? "https://openlibrary.org",
            googleBooksURL: configuration[BookServiceSettings.googleBooksVariable] ?? "https://www.googleapis.com",
            contact: configuration[BookServiceSettings.contactVariable],
            openLibraryCoversURL: configuration[BookServiceSettings.openLibraryCoversVariable])
        BookImportKinds.register(in: registry, assetsRoot: environment.assetsRoot, postgres: environment.postgres, services: services,
                                 configuration: configuration)
    }

    public static var plans: [any ProductionPlan] { BookImportKinds.plans }
    public static var assetReferences: [AssetReferences] { [BookImportKinds.assetReferences] }

    public static func results(of id: UUID, environment: ProductionEnvironment) async throws -> (any ProductionReport)? {
        guard let postgres = environment.postgres else { return nil }
        return try await BookImportClient(postgres: postgres, assetsRoot: environment.assetsRoot).results(id)
    }

    public static var commands: [any ParsableCommand.Type] { [ImportCommand.self, BooksCommand.self] }
    public static var opsViews: [OpsView] { [OpsView(name: "book_imports", order: "started_at DESC", title: "Book imports")] }
    public static var secretVariables: [String] { [BookServiceSettings.googleBooksKeyVariable] }
    public static func stageOrder(parameters: Data) -> [String] { BookImportRequest.Stage.allCases.map(\.rawValue) }
    public static var formerKindNames: [String: String] { ["books.parse": BookParseJob.kind, "books.enrich": BookEnrichJob.kind] }
}

extension BookImportResults: ProductionReport {
    public func text(assetsRoot: URL) -> String { BookImportText.report(self) }
    public func json() throws -> String { try JSONText.pretty(self) + "\n" }
}
