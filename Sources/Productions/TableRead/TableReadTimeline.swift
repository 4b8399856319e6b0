/// Where every spoken line of a table read sits in the assembled audio.
///
/// Lines play in (chapterIndex, orderIndex) order with a pause before each one: longest at a
/// chapter change, long at a scene change, shorter when the speaker changes, shortest between
/// lines of the same speaker, plus the silence a line's delivery asks for ("(beat)"). Lines without audio (a failed item) are left out entirely; the
/// caller reports them. Pure: the assembler feeds it durations and gets times back.
public struct TableReadTimeline: Sendable, Hashable {
    /// Pause lengths in seconds.
    public struct Pauses: Codable, Sendable, Hashable {
        public var chapter: Double
        public var scene: Double
        public var speakerChange: Double
        public var sameSpeaker: Double
        /// Silence before the first line and after the last.
        public var edge: Double

        public init(chapter: Double = 2.0, scene: Double = 1.2, speakerChange: Double = 0.45,
                    sameSpeaker: Double = 0.3, edge: Double = 0.25) {
            (self.chapter, self.scene, self.speakerChange, self.sameSpeaker, self.edge)
                = (chapter, scene, speakerChange, sameSpeaker, edge)
        }
        public static let standard = Pauses()
    }

    /// One line going in.
    public struct Line: Sendable, Hashable {
        public var chapterIndex: Int
        public var orderIndex: Int
        public var sceneIndex: Int?
        public var speaker: String
        public var text: String
        /// Seconds of audio; nil when the line has none.
        public var duration: Double?
        /// Extra silence before the line that its delivery asks for ("(beat)"), in seconds.
        public var deliveryPause: Double

        public init(chapterIndex: Int, orderIndex: Int, sceneIndex: Int?, speaker: String, text: String, duration: Double?,
                    deliveryPause: Double = 0) {
            (self.chapterIndex, self.orderIndex, self.sceneIndex, self.speaker, self.text, self.duration, self.deliveryPause)
                = (chapterIndex, orderIndex, sceneIndex, speaker, text, duration, deliveryPause)
        }
    }

    /// A placed line: the silence to insert before it, then its audio from `start` to `end`.
    public struct Cue: Sendable, Hashable {
        public var line: Line
        public var pauseBefore: Double
        public var start: Double
        public var end: Double

        public init(line: Line, pauseBefore: Double, start: Double, end: Double) {
            self.line = line
            self.pauseBefore = pauseBefore
            self.start = start
            self.end = end
        }
    }

    /// A span (chapter or scene) of the assembled audio.
    public struct Span: Codable, Sendable, Hashable {
        public var index: Int
        public var start: Double
        public var end: Double
    }

    /// The placed lines, in playing order.
    public private(set) var cues: [Cue]
    /// Lines that had no audio, in document order.
    public private(set) var missing: [Line]
    /// Total length including the trailing edge silence.
    public private(set) var duration: Double
    public let pauses: Pauses

    public init(lines: [Line], pauses: Pauses = .standard) {
        self.pauses = pauses
        let ordered = lines.sorted { ($0.chapterIndex, $0.orderIndex) < ($1.chapterIndex, $1.orderIndex) }
        var cues: [Cue] = []
        var missing: [Line] = []
        var clock = 0.0
        for line in ordered {
            guard let length = line.duration, length >= 0 else {
                missing.append(line)
                continue
            }
            var pause = max(0, line.deliveryPause)
            if let previous = cues.last?.line {
                if previous.chapterIndex != line.chapterIndex {
                    pause += pauses.chapter
                } else if previous.sceneIndex != line.sceneIndex {
                    pause += pauses.scene
                } else if previous.speaker != line.speaker {
                    pause += pauses.speakerChange
                } else {
                    pause += pauses.sameSpeaker
                }
            } else {
                pause += pauses.edge
            }
            let start = clock + pause
            cues.append(Cue(line: line, pauseBefore: pause, start: start, end: start + length))
            clock = start + length
        }
        self.cues = cues
        self.missing = missing
        self.duration = cues.isEmpty ? 0 : clock + pauses.edge
    }

    /// Chapters with audio: from the first cue's start to the last cue's end of each.
    public var chapters: [Span] { Self.spans(of: cues) { $0.chapterIndex } }

    /// Scenes with audio (lines before the first scene heading belong to none).
    public var scenes: [Span] { Self.spans(of: cues) { $0.sceneIndex } }

    /// Consecutive runs of `cues` with the same key (nil keys are skipped).
    public static func spans(of cues: [Cue], key: (Line) -> Int?) -> [Span] {
        var out: [Span] = []
        for cue in cues {
            guard let index = key(cue.line) else { continue }
            if let last = out.last, last.index == index {
                out[out.count - 1].end = cue.end
            } else {
                out.append(Span(index: index, start: cue.start, end: cue.end))
            }
        }
        return out
    }
}
