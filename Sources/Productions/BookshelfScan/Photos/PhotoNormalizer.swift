import Foundation
import Speech

/// Makes a photo what a vision model reads best: upright (its EXIF orientation applied, since
/// providers read pixels, not EXIF), at most ``maxSide`` pixels a side, as JPEG. ffmpeg does the
/// decoding, so no image library runs in the worker's process.
public struct PhotoNormalizer: Sendable {
    /// Longest side sent (providers scale larger images down anyway, and bill the pixels).
    public static let maxSide = 2048
    /// Largest normalized image read back.
    static let maxOutputBytes = 20 * 1024 * 1024
    /// How long decoding one photo may take: a second or two for a 50-megapixel JPEG on a busy
    /// machine; a file that keeps ffmpeg busy longer fails instead of holding a worker's thread.
    public static let timeout = Duration.seconds(60)
    public let ffmpeg: FFmpegTool

    public init(ffmpeg: FFmpegTool) { self.ffmpeg = ffmpeg.withTimeout(Self.timeout) }

    /// The ffmpeg filter that shows an image stored with EXIF `orientation` upright.
    static func transform(orientation: Int) -> String? {
        switch orientation {
        case 2: "hflip"
        case 3: "hflip,vflip"
        case 4: "vflip"
        case 5: "transpose=0"  // transposed across the main diagonal
        case 6: "transpose=1"  // turned a quarter clockwise
        case 7: "transpose=3"  // transposed across the other diagonal
        case 8: "transpose=2"  // turned a quarter counterclockwise
        default: nil
        }
    }

    /// The upright, scaled JPEG of the photo at `source`.
    /// - Throws: ``PhotoError/normalizationFailed(_:reason:)`` when ffmpeg cannot decode it.
    @available(*, noasync, message: "runs ffmpeg and waits; call it off the cooperative pool")
    public func upright(_ source: URL, photo: PhotoFile, name: String) throws(PhotoError) -> Data {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-photo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("upright.jpg")
        let scale = "scale=w='min(iw,\(Self.maxSide))':h='min(ih,\(Self.maxSide))':force_original_aspect_ratio=decrease"
        let filters = [Self.transform(orientation: photo.orientation), scale].compactMap { $0 }.joined(separator: ",")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            _ = try ffmpeg.run(["-v", "error", "-noautorotate", "-i", source.path, "-vf", filters, "-frames:v", "1",
                                "-q:v", "3", "-c:v", "mjpeg", "-f", "image2", output.path])
        } catch {
            throw .normalizationFailed(name, reason: "\(error)")
        }
        let size = ((try? FileManager.default.attributesOfItem(atPath: output.path)[.size]) as? Int) ?? 0
        guard size > 0, size <= Self.maxOutputBytes, let data = try? Data(contentsOf: output) else {
            throw .normalizationFailed(name, reason: "ffmpeg wrote \(size) bytes")
        }
        return data
    }
}
