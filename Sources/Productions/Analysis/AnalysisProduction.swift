import ArgumentParser
import Assets
import Foundation
import Generation
import ProductionKit
import RepartoRuntime

/// The script analysis as a production type: scene summaries and embeddings, character
/// descriptions, a logline and a synopsis, storyboard frames, and search over the scenes.
public enum AnalysisProduction: ProductionType {
    public static let name = "analysis"
    public static let noun = "analysis"

    public static func migrations() throws(MigrationError) -> MigrationLine {
        try AnalysisMigrations.line()
    }

    public static func register(in registry: JobRegistry, environment: ProductionEnvironment) {
        AnalysisKinds.register(in: registry, environment: GenerationEnvironment(
            assetsRoot: environment.assetsRoot, configuration: environment.configuration, postgres: environment.postgres))
    }

    public static var plans: [any ProductionPlan] { AnalysisKinds.plans }
    public static var assetReferences: [AssetReferences] { [AnalysisKinds.assetReferences] }

    public static func results(of id: UUID, environment: ProductionEnvironment) async throws -> (any ProductionReport)? {
        guard let postgres = environment.postgres else { return nil }
        return try await AnalysisClient(postgres: postgres, assetsRoot: environment.assetsRoot).results(id)
    }

    public static var commands: [any ParsableCommand.Type] { [AnalyzeCommand.self, SearchCommand.self] }

    /// The storyboard stage only when the analysis asked for one.
    public static func stageOrder(parameters: Data) -> [String] {
        ((try? JSONDecoder().decode(AnalysisRequest.self, from: parameters))?.stages ?? AnalysisRequest.Stage.allCases).map(\.rawValue)
    }
}

extension AnalysisResults: ProductionReport {
    public func text(assetsRoot: URL) -> String { AnalysisText.results(self) }
    public func json() throws -> String { try JSONText.pretty(self) + "\n" }
}
