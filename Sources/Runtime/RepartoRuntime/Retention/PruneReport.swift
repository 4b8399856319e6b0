/// What a prune removed (or, in a dry run, would remove).
public struct PruneReport: Sendable, Equatable {
    /// Succeeded, cancelled and dead jobs outside productions.
    public var jobs = 0
    /// Finished productions, with their table-read rows.
    public var productions = 0
    /// The jobs of those productions.
    public var productionJobs = 0
    /// Rows of stopped or stale workers.
    public var workers = 0
    /// Archived jobs (`job_history`) past their retention: dead ones deleted, and the succeeded
    /// and cancelled ones of the days dropped (for a dry run, those that would be).
    public var historyJobs = 0
    /// Whole days of history dropped.
    public var historyDays = 0

    public init(jobs: Int = 0, productions: Int = 0, productionJobs: Int = 0, workers: Int = 0) {
        self.jobs = jobs
        self.productions = productions
        self.productionJobs = productionJobs
        self.workers = workers
    }

    public var isEmpty: Bool { jobs + productions + productionJobs + workers + historyJobs + historyDays == 0 }

    static func + (lhs: PruneReport, rhs: PruneReport) -> PruneReport {
        var sum = PruneReport(jobs: lhs.jobs + rhs.jobs, productions: lhs.productions + rhs.productions,
                              productionJobs: lhs.productionJobs + rhs.productionJobs, workers: lhs.workers + rhs.workers)
        sum.historyJobs = lhs.historyJobs + rhs.historyJobs
        sum.historyDays = lhs.historyDays + rhs.historyDays
        return sum
    }
}
