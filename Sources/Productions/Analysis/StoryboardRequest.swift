/// The storyboard an analysis was asked for: one frame per scene, drawn by an image provider
/// from the scene's heading and summary (so after the scenes are summarized).
public struct StoryboardRequest: Codable, Sendable, Equatable {
    /// The image providers' fallback chain; the frames run under the first one's limit.
    public var imageProviders: [String]
    /// `WIDTHxHEIGHT` of each frame.
    public var size: String

    public init(imageProviders: [String], size: String = "1024x1024") {
        (self.imageProviders, self.size) = (imageProviders, size)
    }
}
