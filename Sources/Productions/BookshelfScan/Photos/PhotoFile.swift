import Foundation

/// What a photo file is, read from its first bytes only: its format, its size in pixels and the
/// EXIF orientation it asks to be shown in. Nothing is decoded; a file that is not a JPEG, PNG or
/// WebP, or is larger than a shelf photo can be, is refused before any image library sees it.
public struct PhotoFile: Sendable, Hashable {
    public enum Format: String, Sendable, Codable, CaseIterable {
        case jpeg, png, webp

        public var mediaType: String { "image/\(rawValue)" }
    }

    public var format: Format
    /// As stored, before the orientation is applied.
    public var width: Int
    public var height: Int
    /// EXIF orientation 1…8 (1 when the file has none): how the camera was held.
    public var orientation: Int

    /// Largest file accepted (phones write 3–12 MB).
    public static let maxBytes = 30 * 1024 * 1024
    /// Largest image accepted, in pixels: 100 megapixels, at most 20,000 a side (a decompression bomb is refused unread).
    public static let maxPixels = 100_000_000
    public static let maxSide = 20_000

    /// Reads what `bytes` (the whole file, or at least its headers) say.
    /// - Throws: ``PhotoError`` naming what is wrong.
    public static func inspect(_ bytes: [UInt8], name: String) throws(PhotoError) -> PhotoFile {
        let photo: PhotoFile
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            photo = try jpeg(bytes, name: name)
        } else if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            photo = try png(bytes, name: name)
        } else if bytes.count >= 12, Array(bytes[0..<4]) == Array("RIFF".utf8), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            photo = try webp(bytes, name: name)
        } else {
            throw .notAnImage(name)
        }
        guard photo.width > 0, photo.height > 0 else { throw .unreadable(name, reason: "no image size in its header") }
        guard photo.width <= maxSide, photo.height <= maxSide, photo.width * photo.height <= maxPixels else {
            throw .tooManyPixels(name, width: photo.width, height: photo.height)
        }
        return photo
    }

    /// The size once the orientation is applied (5…8 turn it a quarter).
    public var uprightSize: (width: Int, height: Int) { orientation >= 5 ? (height, width) : (width, height) }

    // MARK: JPEG: markers up to the start of scan

    private static func jpeg(_ b: [UInt8], name: String) throws(PhotoError) -> PhotoFile {
        var offset = 2, size: (Int, Int)?, orientation = 1
        while offset + 4 <= b.count {
            guard b[offset] == 0xFF else { throw .unreadable(name, reason: "a JPEG marker is missing at byte \(offset)") }
            let marker = b[offset + 1]
            if marker == 0xFF { offset += 1; continue }  // fill byte
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { offset += 2; continue }
            if marker == 0xD9 || marker == 0xDA { break }  // end of image, start of scan: the headers are over
            let length = Int(b[offset + 2]) << 8 | Int(b[offset + 3])
            guard length >= 2, offset + 2 + length <= b.count else { throw .unreadable(name, reason: "a JPEG segment runs past the end of the file") }
            let body = offset + 4, end = offset + 2 + length
            if marker == 0xE1, end - body > 6, Array(b[body..<body + 6]) == Array("Exif\0\0".utf8) {
                orientation = TIFFOrientation.read(Array(b[(body + 6)..<end])) ?? orientation
            }
            // SOF0…SOF15 except DHT (C4), JPG (C8) and DAC (CC): precision, height, width.
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker), end - body >= 5 {
                size = (Int(b[body + 3]) << 8 | Int(b[body + 4]), Int(b[body + 1]) << 8 | Int(b[body + 2]))
            }
            offset = end
        }
        guard let size else { throw .unreadable(name, reason: "no JPEG frame header") }
        return PhotoFile(format: .jpeg, width: size.0, height: size.1, orientation: orientation)
    }

    // MARK: PNG: IHDR, and an eXIf chunk before the image data

    private static func png(_ b: [UInt8], name: String) throws(PhotoError) -> PhotoFile {
        guard b.count >= 24, Array(b[12..<16]) == Array("IHDR".utf8) else { throw .unreadable(name, reason: "no PNG header chunk") }
        let width = Int(bigEndian: b, at: 16), height = Int(bigEndian: b, at: 20)
        var orientation = 1, offset = 8
        while offset + 8 <= b.count {
            let length = Int(bigEndian: b, at: offset)
            let type = String(decoding: b[(offset + 4)..<(offset + 8)], as: UTF8.self)
            guard length >= 0, offset + 12 + length <= b.count else { break }
            if type == "eXIf" { orientation = TIFFOrientation.read(Array(b[(offset + 8)..<(offset + 8 + length)])) ?? 1 }
            if type == "IDAT" || type == "IEND" { break }
            offset += 12 + length
        }
        return PhotoFile(format: .png, width: width, height: height, orientation: orientation)
    }

    // MARK: WebP: VP8, VP8L or VP8X, and an EXIF chunk

    private static func webp(_ b: [UInt8], name: String) throws(PhotoError) -> PhotoFile {
        var offset = 12, size: (Int, Int)?, orientation = 1
        while offset + 8 <= b.count {
            let type = String(decoding: b[offset..<(offset + 4)], as: UTF8.self)
            let length = Int(b[offset + 4]) | Int(b[offset + 5]) << 8 | Int(b[offset + 6]) << 16 | Int(b[offset + 7]) << 24
            let body = offset + 8
            guard body + length <= b.count else { break }
            switch type {
            case "VP8 " where length >= 10 && b[body + 3] == 0x9D && b[body + 4] == 0x01 && b[body + 5] == 0x2A:
                size = ((Int(b[body + 6]) | Int(b[body + 7]) << 8) & 0x3FFF, (Int(b[body + 8]) | Int(b[body + 9]) << 8) & 0x3FFF)
            case "VP8L" where length >= 5 && b[body] == 0x2F:
                let bits = Int(b[body + 1]) | Int(b[body + 2]) << 8 | Int(b[body + 3]) << 16 | Int(b[body + 4]) << 24
                size = ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
            case "VP8X" where length >= 10:
                size = ((Int(b[body + 4]) | Int(b[body + 5]) << 8 | Int(b[body + 6]) << 16) + 1,
                        (Int(b[body + 7]) | Int(b[body + 8]) << 8 | Int(b[body + 9]) << 16) + 1)
            case "EXIF":
                var tiff = Array(b[body..<(body + length)])
                if tiff.starts(with: Array("Exif\0\0".utf8)) { tiff.removeFirst(6) }
                orientation = TIFFOrientation.read(tiff) ?? orientation
            default:
                break
            }
            offset = body + length + (length & 1)  // chunks are padded to an even length
        }
        guard let size else { throw .unreadable(name, reason: "no WebP image header") }
        return PhotoFile(format: .webp, width: size.0, height: size.1, orientation: orientation)
    }
}

/// The orientation tag (0x0112) of a TIFF structure's first directory, as EXIF carries it.
enum TIFFOrientation {
    static func read(_ t: [UInt8]) -> Int? {
        guard t.count >= 8 else { return nil }
        let little: Bool
        switch (t[0], t[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? { at + 2 <= t.count ? (little ? Int(t[at]) | Int(t[at + 1]) << 8 : Int(t[at]) << 8 | Int(t[at + 1])) : nil }
        func u32(_ at: Int) -> Int? {
            guard at + 4 <= t.count else { return nil }
            let bytes = t[at..<(at + 4)].map(Int.init)
            return little ? bytes[0] | bytes[1] << 8 | bytes[2] << 16 | bytes[3] << 24 : bytes[0] << 24 | bytes[1] << 16 | bytes[2] << 8 | bytes[3]
        }
        guard u16(2) == 42, let directory = u32(4), let count = u16(directory), count <= 1000 else { return nil }
        for index in 0..<count {
            let entry = directory + 2 + index * 12
            guard let tag = u16(entry) else { return nil }
            if tag == 0x0112, let value = u16(entry + 8), (1...8).contains(value) { return value }
        }
        return nil
    }
}

private extension Int {
    init(bigEndian b: [UInt8], at offset: Int) {
        self = Int(b[offset]) << 24 | Int(b[offset + 1]) << 16 | Int(b[offset + 2]) << 8 | Int(b[offset + 3])
    }
}

/// A photo a scan cannot take.
public enum PhotoError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(String, reason: String)
    case notAnImage(String)
    case tooLarge(String, bytes: Int, limit: Int)
    case tooManyPixels(String, width: Int, height: Int)
    case normalizationFailed(String, reason: String)

    public var description: String {
        switch self {
        case let .unreadable(name, reason): "\(name): not a readable image (\(reason))"
        case let .notAnImage(name): "\(name): not a JPEG, PNG or WebP image"
        case let .tooLarge(name, bytes, limit): "\(name): \(bytes) bytes, more than a photo may be (\(limit))"
        case let .tooManyPixels(name, width, height):
            "\(name): \(width)×\(height) pixels, more than a photo may be (\(PhotoFile.maxSide) a side, \(PhotoFile.maxPixels / 1_000_000) megapixels)"
        case let .normalizationFailed(name, reason): "\(name): the image could not be made upright and scaled (\(reason))"
        }
    }
}
