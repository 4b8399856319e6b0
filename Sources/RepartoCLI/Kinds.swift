import Jobs

/// The job kinds and production plans this build of `reparto` knows.
enum Kinds {
    static func registry() -> JobRegistry {
        JobRegistry.withBuiltins()
    }

    static func plans() -> [any ProductionPlan] {
        []
    }
}
