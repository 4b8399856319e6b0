import Assets
import Foundation
import Providers

/// The content keys of generated text, embeddings and images: everything that determines the
/// output (provider, model, parameters, input), so the same request is answered from
/// `generated_content` instead of the provider. The model is the one actually asked (a request
/// without one takes the provider's default, and a new default makes new keys).
public enum GenerationKey {
    /// `text:<sha256>` of provider, model, system prompt, messages, max tokens and temperature.
    public static func text(provider: String, model: String, request: TextGenerationRequest) -> ContentKey {
        var parts = ["provider", provider, "model", model, "system", request.system ?? "",
                     "max_tokens", String(request.maxTokens), "temperature", request.temperature.map { String($0) } ?? "default"]
        for message in request.messages { parts += [message.role.rawValue, message.content] }
        return ContentKey(kind: "text", parts: parts)
    }

    /// `embedding:<sha256>` of provider, model and one text.
    public static func embedding(provider: String, model: String, text: String) -> ContentKey {
        ContentKey(kind: "embedding", parts: ["provider", provider, "model", model, "text", text])
    }

    /// `image:<sha256>` of provider, model, size and prompt.
    public static func image(provider: String, model: String, request: ImageRequest) -> ContentKey {
        ContentKey(kind: "image", parts: ["provider", provider, "model", model, "size", request.size, "prompt", request.prompt])
    }
}
