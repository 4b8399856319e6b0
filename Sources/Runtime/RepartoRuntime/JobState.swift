/// Where a job is in its life.
///
/// `queued → running → succeeded`; a failed attempt goes to `failed` (a retry is scheduled) and
/// back to `running`, or to `dead` when attempts are spent or the error cannot be retried;
/// `cancelled` when its production or the job itself was cancelled.
public enum JobState: String, Codable, Sendable, CaseIterable, Hashable {
    case queued, running, failed, succeeded, dead, cancelled

    /// True for states a job never leaves.
    public var isFinal: Bool {
        switch self {
        case .succeeded, .dead, .cancelled: return true
        case .queued, .running, .failed: return false
        }
    }
}

/// Job priority; RabbitMQ delivers higher priorities first within a queue.
public enum JobPriority: String, Codable, Sendable, CaseIterable {
    case high, normal, low

    /// The AMQP message priority (0...9) stored with the job.
    public var value: Int {
        switch self {
        case .high: return 8
        case .normal: return 4
        case .low: return 0
        }
    }
}
