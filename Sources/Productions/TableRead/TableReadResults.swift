import SpeechJobs
import Foundation
import Screenplay
import Speech

/// Everything known about a table read: progress per stage, the script's facts, the outputs and
/// the failures. What `reparto results` shows (`--json` prints this structure).
public struct TableReadResults: Codable, Sendable, Hashable {
    /// Jobs of one stage by outcome.
    public struct Stage: Codable, Sendable, Hashable {
        public var name: String
        public var total: Int
        public var succeeded: Int
        public var failed: Int
        public var cancelled: Int
        public var pending: Int
    }
    public struct Character: Codable, Sendable, Hashable {
        public var name: String
        public var dialogueLines: Int
        public var words: Int
        public var firstChapter: Int
        public var firstOrder: Int
        public var scenes: [Int]
        public var voice: String?
        /// The voice's provider (a cast may use several); nil for productions enriched before it was recorded.
        public var provider: String?
        /// The person the cue belongs to (`YOUNG EDWARD` → `EDWARD`).
        public var identity: String?
        /// As read from the script; nil: unknown.
        public var gender: String?
        public var genderConfidence: Double?
        public var age: String?
        /// Why it got its voice, with the evidence.
        public var casting: CharacterCasting?
    }
    public struct Scene: Codable, Sendable, Hashable {
        public var index: Int
        public var heading: String
        public var setting: String?
        public var location: String
        public var timeOfDay: String?
        public var eighths: Int
        public var estimatedSeconds: Double
    }
    /// Output paths relative to the asset root.
    public struct Files: Codable, Sendable, Hashable {
        public var audio: String
        public var subtitles: String
        public var chapters: String
        public var report: String
        /// The MP3 and M4B asked for and present on the volume.
        public var encodings: [String]?
    }
    /// A job that did not succeed.
    public struct Failure: Codable, Sendable, Hashable {
        public var jobID: UUID
        public var kind: String
        public var stage: String?
        public var state: String
        public var error: String?
    }

    /// One speakable line and where its audio stands.
    public struct Line: Codable, Sendable, Hashable {
        public var chapterIndex: Int
        public var orderIndex: Int
        /// 1-based, nil before the first scene heading.
        public var sceneIndex: Int?
        /// `narrator` or the character's normalized name.
        public var speaker: String
        public var text: String
        public var provider: String
        public var voice: String
        public var contentKey: String
        public var status: TableReadLineStatus
        /// Why it failed, or the last error of the retry it waits for.
        public var error: String?
        public var durationSeconds: Double?
        /// What the assembler heard wrong in its audio (nil: nothing, or not assembled yet).
        public var defects: [AudioDefect]?
        /// The version of the speakable rules that made the line (``SpeakableRules/version``).
        public var rulesVersion: Int?
    }

    public var productionID: UUID
    public var name: String
    /// running, completed, completed_with_failures or cancelled.
    public var state: String
    public var stage: String
    public var source: String
    public var documentID: UUID?
    public var provider: String?
    public var language: String?
    public var narratorVoice: String?
    public var pageCount: Double?
    public var estimatedSeconds: Double?
    public var wordCount: Int?
    public var lineCount: Int?
    public var files: Files?
    public var audioSeconds: Double?
    public var peakDBFS: Double?
    public var rmsDBFS: Double?
    /// After normalization (nil when the audio was not normalized; report.json says why).
    public var loudnessLUFS: Double?
    public var truePeakDBTP: Double?
    public var spokenLines: Int?
    public var missingLines: Int?
    public var stages: [Stage]
    public var characters: [Character]
    public var scenes: [Scene]
    public var failures: [Failure]
    /// What the parser warned about when it read the script; empty for a clean script.
    public var warnings: [ParseWarning]
    /// The scenes and characters read (nil: the whole script).
    public var scope: TableReadScope?
    /// Every speakable line of the read, in script order (empty before the enrich stage).
    public var lines: [Line]
    /// Where the audio goes, as asked (podcast for reads submitted before masters existed).
    public var master: AudioMaster? = nil
    /// The delivered audio's levels from `report.json` once assembled: the master, its targets and
    /// what was measured (the ACX master's on its MP3, with what did not pass).
    public var mastering: TableReadLoudness? = nil

    /// How many lines are in each status.
    public var lineStatusCounts: [TableReadLineStatus: Int] {
        lines.reduce(into: [:]) { $0[$1.status, default: 0] += 1 }
    }
}

extension TableReadResults {
    /// `seconds` as a clock reading, `m:ss` or `h:mm:ss` (rounded to the second): how durations of
    /// a table read are shown.
    public static func clock(_ seconds: Double) -> String {
        let total = seconds.isFinite ? Int(min(max(seconds, 0), 1e12).rounded()) : 0
        return total >= 3600 ? String(format: "%d:%02d:%02d", total / 3600, total / 60 % 60, total % 60)
                             : String(format: "%d:%02d", total / 60, total % 60)
    }
}
