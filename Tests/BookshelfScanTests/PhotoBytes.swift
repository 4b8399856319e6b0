import Foundation

/// Image files built byte by byte, as cameras and phones write their headers.
enum PhotoBytes {
    static func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    static func be32(_ value: Int) -> [UInt8] { be16(value >> 16) + be16(value & 0xFFFF) }

    /// An EXIF block (little-endian TIFF, as most phones write it) holding only an orientation.
    static func exif(orientation: Int, bigEndian: Bool = false) -> [UInt8] {
        let tiff: [UInt8] = bigEndian
            ? [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01, 0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01,
               0x00, UInt8(orientation), 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]
            : [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00, 0x01, 0x00, 0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00,
               UInt8(orientation), 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]
        return tiff
    }

    /// A JPEG's headers: SOI, an APP1 EXIF segment when `orientation` is given, a baseline frame
    /// header of `width`×`height`, and the start of scan.
    static func jpeg(width: Int, height: Int, orientation: Int? = nil, bigEndianExif: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + be16(16) + Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0]
        if let orientation {
            let body = Array("Exif\0\0".utf8) + exif(orientation: orientation, bigEndian: bigEndianExif)
            bytes += [0xFF, 0xE1] + be16(body.count + 2) + body
        }
        bytes += [0xFF, 0xC0] + be16(17) + [8] + be16(height) + be16(width) + [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
        bytes += [0xFF, 0xDA] + be16(12) + [3, 1, 0, 2, 0x11, 3, 0x11, 0, 0x3F, 0]
        return bytes + [0x12, 0x34, 0xFF, 0xD9]
    }

    /// `jpeg` with an EXIF orientation segment put right after its SOI (what a phone's camera writes).
    static func withOrientation(_ jpeg: [UInt8], _ orientation: Int) -> [UInt8] {
        let body = Array("Exif\0\0".utf8) + exif(orientation: orientation)
        return Array(jpeg.prefix(2)) + [0xFF, 0xE1] + be16(body.count + 2) + body + Array(jpeg.dropFirst(2))
    }

    static func png(width: Int, height: Int) -> [UInt8] {
        let ihdr = be32(width) + be32(height) + [8, 2, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + Array("IHDR".utf8) + ihdr + [0, 0, 0, 0]
            + be32(0) + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]
    }

    /// A lossless WebP's headers (VP8L: 14 bits each of width − 1 and height − 1).
    static func webpLossless(width: Int, height: Int) -> [UInt8] {
        let bits = (width - 1) | (height - 1) << 14
        let chunk: [UInt8] = [0x2F, UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 24 & 0xFF), 0, 0, 0]
        let body = Array("WEBP".utf8) + Array("VP8L".utf8) + le32(chunk.count) + chunk
        return Array("RIFF".utf8) + le32(body.count) + body
    }

    /// An extended WebP (VP8X: 24 bits each of the canvas width − 1 and height − 1) with an EXIF chunk.
    static func webpExtended(width: Int, height: Int, orientation: Int) -> [UInt8] {
        let vp8x: [UInt8] = [0x08, 0, 0, 0] + le24(width - 1) + le24(height - 1)
        let exif = exif(orientation: orientation)
        let body = Array("WEBP".utf8) + Array("VP8X".utf8) + le32(vp8x.count) + vp8x + Array("EXIF".utf8) + le32(exif.count) + exif
        return Array("RIFF".utf8) + le32(body.count) + body
    }

    static func le24(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)] }
    static func le32(_ value: Int) -> [UInt8] { le24(value) + [UInt8(value >> 24 & 0xFF)] }
}
