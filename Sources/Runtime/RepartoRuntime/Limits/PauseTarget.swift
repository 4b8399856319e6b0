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

    /// What `name` means in `registry`: a queue or a kind (`scope` forces one).
    /// - Throws: ``JobRequestError`` when it is both or neither.
    public init(resolving name: String, scope: Scope?, in registry: JobRegistry) throws {
        // A kind's former name (``JobRegistry/alias(_:)``) means the kind it became.
        let definition = registry.definition(for: name)
        if let scope { self.init(scope, scope == .kind ? definition?.kind ?? name : name); return }
        switch (registry.queues.contains(name), definition?.kind == name) {
        case (true, false): self.init(.queue, name)
        case (false, true): self.init(.kind, name)
        case (true, true): throw JobRequestError(description: "'\(name)' is both a queue and a job kind: add --queue or --kind")
        case (false, false):
            if let definition { self.init(.kind, definition.kind); return }
            throw JobRequestError(description: "no queue or job kind '\(name)' in this build (queues: \(registry.queues.joined(separator: ", "))); "
                                  + "add --queue or --kind to name one anyway")
        }
    }
}

/// A paused queue or kind, as `reparto status` and the dashboard show it.
public struct PauseRecord: Sendable, Equatable, Codable {
    public var target: PauseTarget
    public var pausedAt: Date
    /// Its jobs parked until it resumes.
    public var parked: Int
}
