import Foundation

/// An image request: one image from a prompt.
public struct ImageRequest: Sendable, Codable, Equatable, Hashable {
    public var prompt: String
    /// `WIDTHxHEIGHT`, e.g. `1024x1024`.
    public var size: String
    /// The model; nil takes the provider's configured default.
    public var model: String?

    public init(prompt: String, size: String = "1024x1024", model: String? = nil) {
        (self.prompt, self.size, self.model) = (prompt, size, model)
    }

    /// Throws when the prompt is empty or the size is not `WIDTHxHEIGHT`.
    public func validate() throws(ProviderError) {
        guard !prompt.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw .invalidRequest(reason: "empty prompt") }
        let parts = size.split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0, w <= 8192, h <= 8192 else {
            throw .invalidRequest(reason: "size must be WIDTHxHEIGHT, got '\(size)'")
        }
    }
}

/// What an image provider answered: PNG bytes.
public struct GeneratedImage: Sendable, Equatable {
    /// The image (PNG: checked by its signature).
    public var png: Data
    public var model: String
    /// The prompt the provider actually used, when it rewrote it (dall-e-3).
    public var revisedPrompt: String?

    public init(png: Data, model: String, revisedPrompt: String?) {
        (self.png, self.model, self.revisedPrompt) = (png, model, revisedPrompt)
    }

    /// The eight bytes every PNG file starts with.
    public static let pngSignature = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
}
