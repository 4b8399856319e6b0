import SpeechJobs
import Foundation

/// Writes WebVTT subtitles: one cue per spoken line, with the speaker as a voice span
/// (`<v ISOLDE>…`), as players and the W3C WebVTT specification expect.
public enum WebVTT {
    /// The document for `timeline`'s cues. Narration is attributed to `narratorName`.
    public static func document(for timeline: TableReadTimeline, narratorName: String = "Narrator") -> String {
        document(cues: timeline.cues, narratorName: narratorName)
    }

    /// The document for `cues` (as placed in the audio), in the order given.
    public static func document(cues: [TableReadTimeline.Cue], narratorName: String = "Narrator") -> String {
        var out = "WEBVTT\n"
        for (number, cue) in cues.enumerated() {
            let speaker = cue.line.speaker == "narrator" ? narratorName : cue.line.speaker
            out += "\n\(number + 1)\n\(timestamp(cue.start)) --> \(timestamp(cue.end))\n"
            out += "<v \(escapeAnnotation(speaker))>\(escapeText(cue.line.text))\n"
        }
        return out
    }

    /// `hh:mm:ss.ttt`.
    public static func timestamp(_ seconds: Double) -> String {
        // Bounded (about 31 years) so a duration read from a damaged row cannot trap the conversion.
        let millis = seconds.isFinite ? Int((min(max(0, seconds), 1e9) * 1000).rounded()) : 0
        let h = millis / 3_600_000
        let m = millis / 60_000 % 60
        let s = millis / 1000 % 60
        let ms = millis % 1000
        return pad(h, 2) + ":" + pad(m, 2) + ":" + pad(s, 2) + "." + pad(ms, 3)
    }

    /// Cue text: `&`, `<` and `>` escaped; blank lines (which would end the cue) and the
    /// `-->` arrow (which would start a new timing line) cannot appear.
    static func escapeText(_ text: String) -> String {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return lines.joined(separator: "\n")
            .replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    /// A voice annotation ends at `>` and may not contain line breaks.
    static func escapeAnnotation(_ text: String) -> String {
        String(text.map { $0 == ">" || $0.isNewline ? " " : $0 }).replacingOccurrences(of: "&", with: "&amp;")
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
