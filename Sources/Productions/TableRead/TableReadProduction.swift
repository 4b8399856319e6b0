import ArgumentParser
import Assets
import Foundation
import ProductionKit
import RepartoRuntime
import SpeechJobs

/// The table read as a production type: a screenplay parsed, cast and spoken line by line, then
/// assembled into audio with chapters and subtitles.
public enum TableReadProduction: ProductionType {
    public static let name = "table-read"
    public static let noun = "table read"

    public static func migrations() throws(MigrationError) -> MigrationLine {
        try TableReadMigrations.line()
    }

    public static func register(in registry: JobRegistry, environment: ProductionEnvironment) {
        TableReadKinds.register(in: registry, environment: SpeechEnvironment(
            assetsRoot: environment.assetsRoot, variables: environment.configuration.variables, postgres: environment.postgres))
    }

    public static var plans: [any ProductionPlan] { TableReadKinds.plans }

    /// Its documents' sources and each read's files; the spoken lines of a running read stay cached.
    public static let assetReferences = [AssetReferences(
        owner: "table read",
        pathsSQL: """
            SELECT source_path AS path FROM documents WHERE source_path IS NOT NULL
            UNION
            SELECT unnest(ARRAY[source_path, audio_path, subtitles_path, chapters_path, report_path]) FROM table_reads
            """,
        inUseKeysSQL: "SELECT DISTINCT content_key FROM production_lines WHERE production_id = ANY($1::uuid[])")]

    public static func results(of id: UUID, environment: ProductionEnvironment) async throws -> (any ProductionReport)? {
        guard let postgres = environment.postgres else { return nil }
        return try await TableReadClient(postgres: postgres, assetsRoot: environment.assetsRoot).results(id)
    }

    public static var commands: [any ParsableCommand.Type] { [SubmitCommand.self, CastCommand.self] }
    public static func stageOrder(parameters: Data) -> [String] { TableReadRequest.Stage.allCases.map(\.rawValue) }

    public static var formerKindNames: [String: String] {
        ["parse": ParseJob.kind, "enrich": EnrichJob.kind, "assemble": AssembleJob.kind]
    }
}

extension TableReadResults: ProductionReport {
    public func text(assetsRoot: URL) -> String { TableReadText(assetsRoot: assetsRoot).full(self) }
    public func json() throws -> String { try JSONText.pretty(self) + "\n" }
}
