import ProductionKit
import ArgumentParser
import BookCatalog
import Foundation
import RepartoRuntime
import TerminalText

/// `reparto import FILE`: imports a reading-list export into the book catalog; prints the production id.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Import a Goodreads, LibraryThing or StoryGraph export into the book catalog; prints the production id.",
        discussion: "Example: reparto import goodreads_library_export.csv --wait")

    /// `--format`: a format, or `auto` (detect from the header row).
    enum FormatChoice: String, ExpressibleByArgument, CaseIterable {
        case auto, goodreads, librarything, storygraph
        var format: ExportFormat? { ExportFormat(rawValue: rawValue) }
    }

    @OptionGroup var cluster: ClusterOptions

    @Argument(help: "The export (CSV).") var file: String
    @Option(help: "auto, goodreads, librarything or storygraph.") var format: FormatChoice = .auto
    @Option(help: "Production name (default: the file name).") var name: String?
    @Flag(help: "Remove library books the export no longer holds (otherwise they are only reported).") var prune = false
    @Flag(help: "Only parse: do not ask Open Library or Google Books about the books.") var noEnrich = false
    @Option(help: "Books per enrich job (1 to 100).") var booksPerJob: Int = 10
    @Flag(help: "Follow the import until it finishes, then print its report.") var wait = false
    @Option(help: "With --wait: give up after this many seconds.") var timeout: Double = 3600

    func run() async throws {
        let logger = cluster.makeLogger("reparto.import")
        let assets = ClusterSettings.assetsRoot(try cluster.configuration)
        let options = BookImportClient.Options(format: format.format, name: name, prune: prune, enrich: !noEnrich,
                                               booksPerJob: booksPerJob,
                                               politeness: try BookServiceSettings(configuration: cluster.configuration).politeLimit)
        let final = try await cluster.withPostgres(logger: logger) { postgres -> BookImportResults? in
            let books = BookImportClient(postgres: postgres, assetsRoot: assets)
            let id: UUID
            do { id = try await books.submit(file: URL(fileURLWithPath: file), options: options) } catch let error as BookImportError {
                throw CLIError(error.description)
            }
            print(id.uuidString.lowercased())
            guard wait else { return nil }
            let view = StageProgressView(stageOrder: BookImportRequest.Stage.allCases.map(\.rawValue))
            return try await books.awaitResults(id, timeout: timeout, logger: logger) { view.show($0) }
        }
        if let final {
            print(BookImportText.report(final), terminator: "")
            if final.state != "completed" { throw ExitCode(1) }
        }
    }
}
