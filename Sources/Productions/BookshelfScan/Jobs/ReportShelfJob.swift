import Foundation
import Postgres
import RepartoRuntime

/// `bookshelf-scan.report`: the fan-in: the scan's totals, stored with the scan.
public struct ReportShelfJob: JobParameters {
    public static let kind = "bookshelf-scan.report"
    public static let queue = "books"

    public var productionID: UUID

    public init(productionID: UUID) { self.productionID = productionID }

    static func run(_ job: ReportShelfJob, context: JobContext) async throws -> ScanReport {
        let production = job.productionID
        context.transactionalResult { connection in try ScanRows.storeReport(production, on: connection) }
        // Replaced by the effect's report when the completion commits.
        return ScanReport(photos: 0, read: 0, reused: 0, spines: 0, owned: 0, added: 0, toReview: 0, unreadable: 0)
    }
}
