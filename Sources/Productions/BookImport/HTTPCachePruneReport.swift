import Foundation

/// What one prune removed and what is left.
public struct HTTPCachePruneReport: Codable, Sendable, Equatable {
    /// Entries past their TTL or older than the policy's age.
    public var expired = 0
    /// Entries removed, oldest first, to bring the bodies under the size cap.
    public var evicted = 0
    /// What is left (in a dry run, what is there).
    public var entries = 0
    /// The bytes of the bodies left.
    public var bytes: Int64 = 0
    /// A dry run counts and removes nothing.
    public var dryRun = false

    /// A report as given.
    public init(expired: Int = 0, evicted: Int = 0, entries: Int = 0, bytes: Int64 = 0, dryRun: Bool = false) {
        (self.expired, self.evicted, self.entries, self.bytes, self.dryRun) = (expired, evicted, entries, bytes, dryRun)
    }
}
