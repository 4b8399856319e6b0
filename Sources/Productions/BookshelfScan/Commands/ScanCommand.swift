import Foundation
import Generation
import ProductionKit
import Providers

/// `reparto scan PHOTO… [--name N] [--vision-provider P] [--wait]`: photos of bookshelves become
/// catalog books (or items to review).
struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan", abstract: "Read bookshelf photos with a vision model and add the books found to the catalog.",
        discussion: """
            Each photo (JPEG, PNG or WebP) is read by a vision model; every spine is matched against the catalog and \
            Open Library. Sure matches are added (or recognised as books already there); the rest wait in \
            `reparto books review`. Example: reparto scan shelf-1.jpg shelf-2.jpg --vision-provider openai --wait
            """)

    @OptionGroup var cluster: ClusterOptions

    @Argument(help: "The photos.") var photos: [String]
    @Option(help: "Production name (default: the first photo's file name).") var name: String?
    @Option(help: "The vision provider (default: the first configured one).") var visionProvider: String?
    @Option(help: "The model (default: the provider's vision model).") var model: String?
    @Flag(help: "Read every photo again, even one read before.") var fresh = false
    @Flag(help: "Follow the scan until it finishes, then print what each spine became.") var wait = false
    @Flag(help: "With --wait: print the results as JSON.") var json = false
    @Option(help: "With --wait: give up after this many seconds.") var timeout: Double = 3600

    func validate() throws {
        guard !photos.isEmpty else { throw ValidationError("give at least one photo") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
    }

    func run() async throws {
        let logger = cluster.makeLogger("reparto.scan")
        let configuration = try cluster.configuration
        let assets = ClusterSettings.assetsRoot(configuration)
        let provider: String
        do {
            provider = try ProviderChoice.chain(visionProvider, capability: .vision, registry: .standard(values: configuration))[0]
        } catch { throw CLIError(error.description) }
        let options = BookshelfScanClient.Options(visionProvider: provider, model: model, name: name, fresh: fresh)
        let urls = photos.map { URL(fileURLWithPath: $0) }
        let final = try await cluster.withPostgres(logger: logger) { postgres -> ScanResults? in
            let scans = BookshelfScanClient(postgres: postgres, assetsRoot: assets)
            let id: UUID
            do { id = try await scans.submit(photos: urls, options: options) } catch let error as ScanError {
                throw CLIError(error.description)
            }
            print(id.uuidString.lowercased())
            guard wait else { return nil }
            let view = StageProgressView(stageOrder: ScanRequest.Stage.allCases.map(\.rawValue))
            return try await scans.awaitResults(id, timeout: timeout, logger: logger) { view.show($0) }
        }
        if let final {
            print(json ? try final.json() : ScanText.results(final), terminator: "")
            if final.state != "completed" { throw ExitCode(1) }
        }
    }
}
