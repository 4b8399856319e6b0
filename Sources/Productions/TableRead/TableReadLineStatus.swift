import SpeechJobs
import Foundation
import RepartoRuntime

/// Where one line's audio stands.
public enum TableReadLineStatus: String, Codable, Sendable, Hashable, CaseIterable {
    /// Waiting: its speech job is not created yet, queued, or waiting for a retry.
    case queued
    /// A worker is speaking it.
    case generating
    /// Its audio exists (generated for this read or reused).
    case complete
    /// Its speech job died or was cancelled, or the read ended without it.
    case failed

    /// A line's status from its facts: whether its audio exists, the states (with last errors) of
    /// the speech jobs that carry it, and whether the production has ended. Returns the status
    /// and the reason worth showing (the last error of a failed or retrying job).
    public static func of(hasAudio: Bool, jobs: [(state: JobState, error: String?)],
                          productionEnded: Bool) -> (TableReadLineStatus, String?) {
        if hasAudio { return (.complete, nil) }
        if jobs.contains(where: { $0.state == .running }) { return (.generating, nil) }
        if let waiting = jobs.last(where: { $0.state == .queued || $0.state == .failed }) {
            return (.queued, waiting.state == .failed ? waiting.error : nil)
        }
        if let ended = jobs.last(where: { $0.state == .dead || $0.state == .cancelled }) {
            return (.failed, ended.state == .cancelled ? "cancelled" : (ended.error ?? "generation failed"))
        }
        return productionEnded ? (.failed, "no audio was generated for this line") : (.queued, nil)
    }
}
