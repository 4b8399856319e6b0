import Foundation
import Jobs

/// Registers the book import's job kinds with a worker's registry.
public enum BookImportKinds {
    /// The production plans of the book import (the coordinator drives them).
    public static var plans: [any ProductionPlan] { [BookImportPlan()] }

    /// Registers `books.parse`; exports are read below `assetsRoot`.
    public static func register(in registry: JobRegistry, assetsRoot: URL) {
        BookParseJob.register(in: registry, assetsRoot: assetsRoot)
    }
}
