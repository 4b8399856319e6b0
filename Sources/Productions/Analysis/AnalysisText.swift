import Foundation
import TerminalText
import TextEscaping

/// How an analysis and search hits read on a terminal.
public enum AnalysisText {
    /// Logline, synopsis, then each scene's summary (and storyboard frame), then the characters.
    public static func results(_ results: AnalysisResults) -> String {
        var out = "analysis of \(results.sourceName) (\(results.productionID.uuidString.lowercased()))\n\n"
        out += "LOGLINE\n\(results.logline ?? "(not written)")\n\nSYNOPSIS\n\(results.synopsis ?? "(not written)")\n\nSCENES\n"
        for scene in results.scenes {
            out += "\(scene.index + 1). \(scene.heading)\n   \(scene.summary ?? "(no summary)")\n"
            if let frame = scene.frame { out += "   frame: \(frame.file ?? frame.path)\n" }
        }
        if !results.characters.isEmpty {
            out += "\nCHARACTERS\n"
            for character in results.characters {
                out += "\(character.name) (\(character.lines) lines)\n   \(character.description ?? "(not described)")\n"
            }
        }
        return TerminalSafe.clean(out)
    }

    /// Search hits, best first.
    public static func matches(_ matches: [SceneMatch]) -> String {
        guard !matches.isEmpty else { return "no analyzed scenes to search" }
        return TextTable.render(header: ["SCORE", "SCENE", "HEADING", "PRODUCTION"], rows: matches.map {
            [String(format: "%.3f", $0.score), "\($0.scene + 1)", $0.heading, $0.productionID.uuidString.lowercased()]
        })
    }
}
