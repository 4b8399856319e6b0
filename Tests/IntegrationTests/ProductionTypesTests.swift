import Composition
import Foundation
import ProductionKit
import RepartoConfiguration
import RepartoRuntime
import RepartoTestSupport
import Testing

/// The one shape of production types, as the composition root assembles them (no server).
@Suite(.timeLimit(.minutes(1)))
struct ProductionTypesTests {
    /// `noop`, `sleep`, `fail`: the runtime's own, one word; everything else is `<owner>.<step>`.
    static let builtins: Set<String> = ["noop", "sleep", "fail"]

    @Test func everyKindIsNamedOwnerDotStepAndEachTypesKindsCarryItsName() throws {
        let registry = Kinds.registry(configuration: ConfigurationValues(environment: [:]))
        for kind in registry.definitions.map(\.kind) where !Self.builtins.contains(kind) {
            let parts = kind.split(separator: ".", omittingEmptySubsequences: false)
            #expect(parts.count == 2 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isLowercase || $0 == "-" } }, "\(kind)")
        }
        for type in ProductionTypes.all {
            let own = JobRegistry()
            type.register(in: own, environment: ProductionEnvironment(assetsRoot: URL(fileURLWithPath: "/nonexistent"),
                                                                      configuration: ConfigurationValues(environment: [:])))
            #expect(!own.definitions.isEmpty, "\(type.name) registers no kind")
            for kind in own.definitions.map(\.kind) { #expect(kind.hasPrefix("\(type.name)."), "\(kind) of \(type.name)") }
            // Every former name resolves to one of the type's kinds.
            own.alias(type.formerKindNames)
            for (old, new) in type.formerKindNames { #expect(own.definition(for: old)?.kind == new) }
        }
    }

    @Test func typesHaveDistinctNamesPlansAndLinesAndEveryPlanIsDriven() throws {
        let types = ProductionTypes.all
        #expect(Set(types.map { $0.name }).count == types.count)
        let plans = types.flatMap { $0.planNames }
        #expect(Set(plans).count == plans.count)
        #expect(Set(Kinds.plans().map(\.name)) == Set(plans))
        let lines = try Kinds.migrationLines(ConfigurationValues(environment: [:]),
                                             runtimeDirectory: TestEnvironment.repositoryRoot.appendingPathComponent("migrations"))
        for type in types { #expect(lines.contains { $0.name == type.name }, "\(type.name) has no migration line") }
        // Dependencies come first.
        for (index, line) in lines.enumerated() {
            for dependency in line.dependsOn { #expect(lines.prefix(index).contains { $0.name == dependency }, "\(line.name) before \(dependency)") }
        }
    }

    /// scripts/lib/migration-list.py writes each module's list; a migration added to a folder but
    /// not to its list would never run.
    @Test func everyMigrationFileIsInItsLinesList() throws {
        let root = TestEnvironment.repositoryRoot.appendingPathComponent("Sources")
        let fileManager = FileManager.default
        var checked = 0
        for layer in try fileManager.contentsOfDirectory(atPath: root.path) {
            let layerURL = root.appendingPathComponent(layer)
            for module in (try? fileManager.contentsOfDirectory(atPath: layerURL.path)) ?? [] {
                let folder = layerURL.appendingPathComponent(module).appendingPathComponent("Migrations")
                guard let files = try? fileManager.contentsOfDirectory(atPath: folder.path) else { continue }
                let sql = files.filter { $0.hasSuffix(".sql") }.sorted()
                let lists = try fileManager.contentsOfDirectory(atPath: folder.deletingLastPathComponent().path)
                    .filter { $0.hasSuffix("Migrations.swift") }
                #expect(lists.count == 1, "\(module): one generated list")
                let text = try String(contentsOf: folder.deletingLastPathComponent().appendingPathComponent(lists.first ?? ""), encoding: .utf8)
                for file in sql { #expect(text.contains("(file: \"\(file)\""), "\(module)/Migrations/\(file) is not in its list") }
                #expect(text.components(separatedBy: "(file: \"").count - 1 == sql.count, "\(module): the list names a file that is gone")
                checked += 1
            }
        }
        #expect(checked >= 6)
    }
}
