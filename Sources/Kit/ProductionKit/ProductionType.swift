import ArgumentParser
import Assets
import Foundation
import RepartoRuntime

/// One production type — a table read, a book import, a script analysis — as the runtime, the
/// CLI, the dashboard and the asset sweep see it: everything a type adds to a cluster, declared
/// in one place. The composition root holds the one list of types this build runs
/// (`ProductionTypes.all`); nothing else names a type.
///
/// A type's kinds are named `<name>.<step>` (`book-import.parse`). Its schema is its own
/// migration line (``migrations()``), applied after the lines it depends on. See
/// docs/adding-a-production-type.md.
public protocol ProductionType {
    /// The stable name: the prefix of its kinds and the name of its migration line (`table-read`).
    static var name: String { get }
    /// What people call one production of this type (`table read`), for messages and headings.
    static var noun: String { get }
    /// The schema this type owns, as its own ordered and checksummed migration line.
    static func migrations() throws(MigrationError) -> MigrationLine
    /// Registers the type's kinds. Every kind is registered whatever the environment holds: a
    /// handler that needs what is missing (the database) fails its job with a reason, so no job of
    /// this type ever dies as an unknown kind.
    static func register(in registry: JobRegistry, environment: ProductionEnvironment)
    /// The plans the coordinator drives for this type's productions.
    static var plans: [any ProductionPlan] { get }
    /// What the type's rows name on the asset volume: the sweep keeps all of it.
    static var assetReferences: [AssetReferences] { get }
    /// The results of production `id`, nil when it is not one of this type's.
    static func results(of id: UUID, environment: ProductionEnvironment) async throws -> (any ProductionReport)?
    /// The type's `reparto` subcommands (`submit`, `import`, `books`, `analyze`).
    static var commands: [any ParsableCommand.Type] { get }
    /// The type's `reparto bench` subcommands.
    static var benchmarks: [any ParsableCommand.Type] { get }
    /// The `ops.*` views its migrations create, shown by `reparto status` and the dashboard.
    static var opsViews: [OpsView] { get }
    /// Secret variables (API keys) its kinds read: a worker refuses to start when one breaks the
    /// secret rule, instead of failing every job that needs it.
    static var secretVariables: [String] { get }
    /// Former names of its kinds (old → new): jobs stored under them still run after a rename.
    static var formerKindNames: [String: String] { get }
    /// The stages of a production of this type, in order, given its stored parameters: what
    /// `reparto watch` shows as waiting before they start.
    static func stageOrder(parameters: Data) -> [String]
}

extension ProductionType {
    public static var assetReferences: [AssetReferences] { [] }
    public static var commands: [any ParsableCommand.Type] { [] }
    public static var benchmarks: [any ParsableCommand.Type] { [] }
    public static var opsViews: [OpsView] { [] }
    public static var secretVariables: [String] { [] }
    public static var formerKindNames: [String: String] { [:] }
    public static func stageOrder(parameters: Data) -> [String] { [] }

    /// The names of the plans this type drives.
    public static var planNames: [String] { plans.map(\.name) }
}
