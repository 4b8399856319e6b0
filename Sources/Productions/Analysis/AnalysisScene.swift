import Foundation
import Screenplay

/// One scene of a script as the analysis reads it: its heading and its text as plain lines.
public struct AnalysisScene: Codable, Sendable, Hashable {
    /// 0-based, in script order (an opening before the first heading is scene 0).
    public var index: Int
    public var heading: String
    /// Action as is, dialogue as `NAME: line`, one element per line.
    public var body: String

    public init(index: Int, heading: String, body: String) {
        (self.index, self.heading, self.body) = (index, heading, body)
    }

    /// The scenes of a parsed script; a script without headings is one scene.
    public static func scenes(of document: ScreenplayDocument) -> [AnalysisScene] {
        var scenes: [AnalysisScene] = []
        var heading = "(opening)"
        var lines: [String] = []
        var speaker: String?
        func close() {
            let body = lines.joined(separator: "\n")
            if !body.isEmpty || heading != "(opening)" {
                scenes.append(AnalysisScene(index: scenes.count, heading: heading, body: body))
            }
            lines = []
        }
        for element in document.elements {
            switch element.type {
            case .sceneHeading:
                close()
                heading = element.text
            case .character:
                speaker = element.name ?? element.text
            case .dialogue:
                lines.append("\(speaker ?? "SOMEONE"): \(element.text)")
            case .parenthetical:
                lines.append("(\(element.text.trimmingCharacters(in: CharacterSet(charactersIn: "()"))))")
            case .action, .transition, .lyrics, .centered:
                lines.append(element.text)
            default:
                break  // comments, boneyard, sections, synopses, page breaks: not part of the scene
            }
        }
        close()
        return scenes
    }
}
