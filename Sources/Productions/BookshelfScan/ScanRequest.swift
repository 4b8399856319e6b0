import Foundation
import RepartoRuntime

/// A bookshelf scan as submitted: the production's parameters.
public struct ScanRequest: Codable, Sendable, Hashable {
    /// `productions.plan` of a scan.
    public static let plan = "bookshelf-scan"

    /// The plan's stages, in order.
    public enum Stage: String, Sendable, CaseIterable {
        /// One `bookshelf-scan.read` per photo: the spines a vision model reads.
        case read
        /// One `bookshelf-scan.match` per photo read: each spine against the catalog and Open Library.
        case match
        /// One `bookshelf-scan.report`: the scan's totals.
        case report
    }

    /// The vision provider every photo is read by (`openai`, `anthropic`, …).
    public var visionProvider: String
    /// The model; nil takes the provider's default vision model.
    public var model: String?
    public var priority: JobPriority
    /// Read every photo again even when the same image was read before.
    public var fresh: Bool

    public init(visionProvider: String, model: String? = nil, priority: JobPriority = .normal, fresh: Bool = false) {
        (self.visionProvider, self.model, self.priority, self.fresh) = (visionProvider, model, priority, fresh)
    }

    func jobOptions(productionID: UUID, stage: Stage) -> JobOptions {
        JobOptions(priority: priority, maxAttempts: 5, productionID: productionID, stage: stage.rawValue)
    }
}
