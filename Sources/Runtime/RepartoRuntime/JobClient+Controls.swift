import Foundation
import Postgres

// Runtime controls: limits, pause and resume.
extension JobClient {
    /// Creates or replaces a cluster-wide limit (see ``LimitSpec``); jobs already waiting under it
    /// are admitted again under the new terms.
    public func setLimit(_ spec: LimitSpec) async throws {
        try await postgres.withTransaction { try JobStore.setLimit(spec, on: $0) }
    }

    /// Creates a limit unless one of that name exists, in the caller's transaction: a default
    /// (a public service's politeness, say) that never overrides what an operator set. True when created.
    @available(*, noasync)
    public static func addLimitIfAbsent(_ spec: LimitSpec, in connection: PostgresConnection) throws -> Bool {
        try JobStore.addLimitIfAbsent(spec, on: connection)
    }

    /// Deletes a limit; its waiting jobs run without it. Throws ``RepartoError/notFound(what:id:)`` when none has the name.
    public func deleteLimit(_ name: String) async throws {
        let deleted = try await postgres.withTransaction { try JobStore.deleteLimit(name, on: $0) }
        if !deleted { throw RepartoError.notFound(what: "limit", id: name) }
    }

    /// Every limit with its current use (tokens, running and waiting jobs).
    public func limits() async throws -> [LimitUsage] {
        try await postgres.withConnection { try JobStore.limits(on: $0) }
    }

    /// Pauses a queue or kind cluster-wide; false when it was paused already.
    @discardableResult
    public func pause(_ target: PauseTarget) async throws -> Bool {
        try await postgres.withConnection { try JobStore.pause(target, on: $0) }
    }

    /// Resumes a queue or kind; returns how many parked jobs were released. Throws
    /// ``RepartoError/notFound(what:id:)`` when it was not paused.
    @discardableResult
    public func resume(_ target: PauseTarget) async throws -> Int {
        guard let released = try await postgres.withConnection({ try JobStore.resume(target, on: $0) }) else {
            throw RepartoError.notFound(what: "paused \(target.scope.rawValue)", id: target.name)
        }
        return released
    }

    /// The paused queues and kinds.
    public func pauses() async throws -> [PauseRecord] {
        try await postgres.withConnection { try JobStore.pauses(on: $0) }
    }
}
