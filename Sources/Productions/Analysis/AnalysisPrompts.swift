import Providers

/// The prompts of the script analysis. Pure: the same scene gives the same request, so an
/// unchanged scene of an edited script is answered from stored results.
public enum AnalysisPrompts {
    static let system = "You are a script reader. Answer in plain prose, without preamble."

    /// A summary of one scene in two or three sentences.
    public static func sceneSummary(_ scene: AnalysisScene) -> TextGenerationRequest {
        TextGenerationRequest(prompt: "Summarize this scene in two or three sentences.\n\n\(scene.heading)\n\(scene.body)",
                              system: system, maxTokens: 200, temperature: 0)
    }

    /// The text embedded for a scene (its heading and body).
    public static func embeddingText(_ scene: AnalysisScene) -> String {
        scene.heading + "\n" + scene.body
    }

    /// A one-sentence logline from the scene summaries.
    public static func logline(summaries: [String]) -> TextGenerationRequest {
        TextGenerationRequest(prompt: "Write a one-sentence logline for the script these scene summaries describe.\n\n"
                              + numbered(summaries), system: system, maxTokens: 120, temperature: 0)
    }

    /// A one-page synopsis from the scene summaries.
    public static func synopsis(summaries: [String]) -> TextGenerationRequest {
        TextGenerationRequest(prompt: "Write a one-page synopsis of the script these scene summaries describe.\n\n"
                              + numbered(summaries), system: system, maxTokens: 1_000, temperature: 0)
    }

    /// A two-sentence description of a character from their lines.
    public static func character(_ character: AnalysisCharacter) -> TextGenerationRequest {
        TextGenerationRequest(prompt: "Describe the character \(character.name) in two sentences from these lines of theirs.\n\n"
                              + character.lines, system: system, maxTokens: 150, temperature: 0)
    }

    /// A storyboard frame of a scene, drawn from its heading and summary (not its number, so an
    /// unchanged scene of an edited script asks for the same image and reuses it).
    public static func storyboardFrame(heading: String, summary: String, size: String) -> ImageRequest {
        ImageRequest(prompt: "A storyboard frame for a film scene, pencil sketch, wide shot, no text or captions.\n"
                     + "Scene: \(heading)\n\(summary)", size: size)
    }

    static func numbered(_ summaries: [String]) -> String {
        summaries.enumerated().map { "Scene \($0.offset + 1): \($0.element)" }.joined(separator: "\n")
    }
}
