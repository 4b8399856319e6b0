import BookImport
import Foundation
import Generation
import ProductionKit
import Providers
import RepartoRuntime
import Speech

/// Registers the scan's kinds: `bookshelf-scan.read`, `bookshelf-scan.match`, `bookshelf-scan.report`.
public enum BookshelfScanKinds {
    public static var plans: [any ProductionPlan] { [ScanPlan()] }

    /// - Parameters:
    ///   - providers: the vision providers; nil: the standard ones configured from the environment.
    ///   - bookServices: Open Library's address and limits; nil: from the environment.
    public static func register(in registry: JobRegistry, environment: ProductionEnvironment,
                                providers: GenerationProviderRegistry? = nil, bookServices: BookServiceSettings? = nil) {
        let configuration = environment.configuration
        let reader = ShelfReader(providers: providers ?? .standard(values: configuration), assetsRoot: environment.assetsRoot,
                                 postgres: environment.postgres,
                                 normalizer: FFmpegTool.locate(environment: configuration.variables).map(PhotoNormalizer.init(ffmpeg:)))
        let services = bookServices ?? (try? BookServiceSettings(configuration: configuration)) ?? BookServiceSettings()
        let matcher = ShelfMatcher(search: environment.postgres.map { BookSearch(settings: services, postgres: $0) },
                                   postgres: environment.postgres, politeness: services.politeLimit)
        registry.register(ReadShelfJob.self, timeout: ReadShelfJob.timeout) { try await reader.run($0, context: $1) }
        registry.register(MatchShelfJob.self, timeout: MatchShelfJob.timeout) { try await matcher.run($0, context: $1) }
        registry.register(ReportShelfJob.self) { try await ReportShelfJob.run($0, context: $1) }
    }
}
