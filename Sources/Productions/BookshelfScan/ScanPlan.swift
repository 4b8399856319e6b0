import Foundation
import Postgres
import RepartoRuntime

/// The `bookshelf-scan` plan: read → match → report.
///
/// - **read**: one `bookshelf-scan.read` per photo (created at submission).
/// - **match**: one `bookshelf-scan.match` per photo read and not matched yet, so a retry of the
///   failed reads matches only those photos.
/// - **report**: one `bookshelf-scan.report`, the totals. Finished after it, or after the reads
///   when no photo could be read.
public struct ScanPlan: ProductionPlan {
    public init() {}

    public var name: String { ScanRequest.plan }

    public func advance(_ production: ProductionSnapshot, on connection: PostgresConnection) throws -> StageDecision {
        let request = try JSONDecoder().decode(ScanRequest.self, from: production.parameters)
        switch ScanRequest.Stage(rawValue: production.stage) {
        case .read:
            let unmatched = try ScanRows.photos(production.id, state: "read", on: connection)
            if unmatched.isEmpty {
                let matched = try ScanRows.photos(production.id, state: "matched", on: connection)
                guard !matched.isEmpty else { return .finish }
                return .next(stage: ScanRequest.Stage.report.rawValue, jobs: [try report(production.id, request)])
            }
            let jobs = try unmatched.map { photo in
                try JobRequest(MatchShelfJob(productionID: production.id, photo: photo.photo),
                               options: request.jobOptions(productionID: production.id, stage: .match))
            }
            return .next(stage: ScanRequest.Stage.match.rawValue, jobs: jobs)
        case .match:
            return .next(stage: ScanRequest.Stage.report.rawValue, jobs: [try report(production.id, request)])
        case .report, nil:
            return .finish
        }
    }

    private func report(_ id: UUID, _ request: ScanRequest) throws -> JobRequest {
        try JobRequest(ReportShelfJob(productionID: id), options: request.jobOptions(productionID: id, stage: .report))
    }
}
