import Foundation
import RepartoTestSupport

/// An OpenAI-compatible stand-in that answers what a script analysis asks: a scene's summary names
/// its heading, a character's description names the character, the logline and synopsis are fixed,
/// embeddings count the words of ``AnalysisTests/vocabulary``. A test's `intercept` sees each ask
/// first and answers it instead (a failure, a held request) or returns nil after recording it.
enum AnalysisStandIn {
    /// What one request asks for.
    enum Ask: Sendable, Equatable {
        case summary(heading: String)
        case character(name: String)
        case logline
        case synopsis
        case embedding
    }

    static let logline = "A kettle, a storm and a clerk."
    static let synopsis = "Anna boils water; rain falls; Bob files."

    /// `images` answers `/v1/images/generations` (a 404 without it).
    static func start(images: (@Sendable (FakeHTTPServer.Request) -> FakeHTTPServer.Reply)? = nil,
                      intercept: @escaping @Sendable (Ask) -> FakeHTTPServer.Reply? = { _ in nil }) throws -> FakeHTTPServer {
        try FakeHTTPServer { request in
            let json = (try? JSONSerialization.jsonObject(with: request.body) as? [String: Any]) ?? [:]
            switch request.path {
            case "/v1/chat/completions":
                let ask = self.ask(prompt: (json["messages"] as? [[String: String]])?.last?["content"] ?? "")
                if let reply = intercept(ask) { return reply }
                switch ask {
                case .summary(let heading): return ProviderStandIns.openAIChat("Summary of \(heading).")
                case .character(let name): return ProviderStandIns.openAIChat("Description of \(name).")
                case .logline: return ProviderStandIns.openAIChat(logline)
                case .synopsis, .embedding: return ProviderStandIns.openAIChat(synopsis)  // .embedding: never a chat ask
                }
            case "/v1/embeddings":
                if let reply = intercept(.embedding) { return reply }
                let texts = json["input"] as? [String] ?? []
                return ProviderStandIns.openAIEmbeddings(texts.map(AnalysisTests.vector), model: "nomic-embed-text")
            case "/v1/images/generations" where images != nil:
                return images!(request)
            default:
                return .respond(status: 404, headers: [], body: Data())
            }
        }
    }

    /// A chat prompt's ask, from the analysis prompts' openings.
    static func ask(prompt: String) -> Ask {
        if prompt.hasPrefix("Summarize this scene") {
            return .summary(heading: prompt.split(separator: "\n").dropFirst(1).first.map(String.init) ?? "?")
        }
        if prompt.hasPrefix("Describe the character") {
            return .character(name: prompt.split(separator: " ").dropFirst(3).first.map(String.init) ?? "?")
        }
        return prompt.contains("logline") ? .logline : .synopsis
    }
}
