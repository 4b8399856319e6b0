import BookshelfScan
import Foundation
import Speech
import Testing

/// Photos made upright and scaled by ffmpeg (a real decoder on real JPEG, PNG and WebP files).
@Suite(.timeLimit(.minutes(2)))
struct PhotoNormalizerTests {
    static func make(_ name: String, size: String, in folder: URL) throws -> URL {
        let ffmpeg = try #require(FFmpegTool.locate(), "ffmpeg is needed (scripts/services installs it)")
        let file = folder.appendingPathComponent(name)
        _ = try ffmpeg.run(["-v", "error", "-f", "lavfi", "-i", "color=c=0x884422:s=\(size)", "-frames:v", "1", "-y", file.path])
        return file
    }

    static func normalized(_ file: URL) throws -> PhotoFile {
        let ffmpeg = try #require(FFmpegTool.locate())
        let photo = try PhotoFile.inspect(Array(try Data(contentsOf: file)), name: file.lastPathComponent)
        let upright = try PhotoNormalizer(ffmpeg: ffmpeg).upright(file, photo: photo, name: file.lastPathComponent)
        return try PhotoFile.inspect(Array(upright), name: "upright")
    }

    @Test(arguments: [(1, 64, 32), (3, 64, 32), (6, 32, 64), (8, 32, 64), (5, 32, 64), (2, 64, 32)])
    func theEXIFOrientationIsApplied(orientation: Int, width: Int, height: Int) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-photo-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try Self.make("shelf.jpg", size: "64x32", in: folder)
        try Data(PhotoBytes.withOrientation(Array(try Data(contentsOf: file)), orientation)).write(to: file)
        let upright = try Self.normalized(file)
        #expect(upright.format == .jpeg)
        #expect(upright.width == width && upright.height == height)
        #expect(upright.orientation == 1, "the upright copy carries no orientation to apply twice")
    }

    @Test func aLargePhotoIsScaledToTheLongestSideAndPNGAndWebPBecomeJPEG() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-photo-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let large = try Self.normalized(try Self.make("wide.png", size: "4096x1024", in: folder))
        #expect(large.format == .jpeg)
        #expect(large.width == PhotoNormalizer.maxSide && large.height == 512)
        let webp = try Self.normalized(try Self.make("shelf.webp", size: "300x200", in: folder))
        #expect(webp.format == .jpeg && webp.width == 300 && webp.height == 200)
    }

    @Test func aFileThatOnlyLooksLikeAnImageFailsWithItsName() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-photo-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // A PNG's header and no image data: it sniffs as a photo, and no decoder can make one of it.
        let file = folder.appendingPathComponent("fake.png")
        try Data(PhotoBytes.png(width: 100, height: 100)).write(to: file)
        let ffmpeg = try #require(FFmpegTool.locate())
        #expect(throws: PhotoError.self) {
            try PhotoNormalizer(ffmpeg: ffmpeg).upright(file, photo: try PhotoFile.inspect(Array(try Data(contentsOf: file)), name: "fake.png"),
                                                       name: "fake.png")
        }
    }
}
