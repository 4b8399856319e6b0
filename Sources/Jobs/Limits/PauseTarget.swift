import Foundation

/// A queue or a job kind that can be paused.
public struct PauseTarget: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Scope: String, Sendable, Hashable, Codable {
        case queue, kind
    }

    public var scope: Scope
    public var name: String

    public init(_ scope: Scope, _ name: String) {
        self.scope = scope
        self.name = name
    }

    public var description: String { "\(scope.rawValue) \(name)" }
}

/// A paused queue or kind, as `reparto status` and the dashboard show it.
public struct PauseRecord: Sendable, Equatable, Codable {
    public var target: PauseTarget
    public var pausedAt: Date
    /// Its jobs parked until it resumes.
    public var parked: Int
}
