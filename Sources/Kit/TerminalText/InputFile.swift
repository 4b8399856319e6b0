import Foundation

/// Reads a file or standard input, never more than `maxBytes + 1` bytes.
public enum InputFile {
    /// - Throws: ``InputFileError`` naming the path and what went wrong.
    public static func read(_ path: String, maxBytes: Int) throws -> [UInt8] {
        let handle: FileHandle
        if path == "-" {
            handle = FileHandle.standardInput
        } else {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw InputFileError(description: "\(path): no such file")
            }
            if isDirectory.boolValue { throw InputFileError(description: "\(path): is a directory") }
            guard let h = FileHandle(forReadingAtPath: path) else {
                throw InputFileError(description: "\(path): cannot open for reading")
            }
            handle = h
        }
        defer { if path != "-" { try? handle.close() } }
        var bytes: [UInt8] = []
        let limit = max(0, maxBytes) + 1
        while bytes.count < limit {
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: min(1 << 20, limit - bytes.count))
            } catch {
                throw InputFileError(description: "\(path): read failed: \(error.localizedDescription)")
            }
            guard let chunk, !chunk.isEmpty else { break }
            bytes.append(contentsOf: chunk)
        }
        if bytes.count > maxBytes {
            throw InputFileError(description: "\(path): input too large: more than the limit of \(maxBytes) bytes")
        }
        return bytes
    }
}

/// A file that cannot be read as input, in one line naming it.
public struct InputFileError: Error, Sendable, CustomStringConvertible {
    public let description: String
}
