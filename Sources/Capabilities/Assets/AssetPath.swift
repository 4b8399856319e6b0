/// Validation and sanitizing of names and relative paths on the asset volume.
///
/// Lexical checks happen here; the symbolic-link check happens in ``AssetStore`` after the
/// parent folder has been resolved on disk.
public enum AssetPath {
    /// Longest single path component accepted (bytes of UTF-8), matching common `NAME_MAX`.
    public static let maxComponentLength = 255

    /// Turns an arbitrary string (a production title, a request id) into one safe path component:
    /// letters, digits, `-`, `_` and `.` are kept, everything else becomes `-`; leading dots are
    /// removed so the result is never hidden, `.` or `..`; empty input becomes `"_"`.
    public static func sanitize(_ name: String) -> String {
        var out = ""
        out.reserveCapacity(name.utf8.count)
        for scalar in name.unicodeScalars {
            if (scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)))
                || scalar == "-" || scalar == "_" || scalar == "." {
                out.unicodeScalars.append(scalar)
            } else if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                out.unicodeScalars.append(scalar)
            } else {
                out.append("-")
            }
        }
        while out.hasPrefix(".") { out.removeFirst() }
        while out.utf8.count > maxComponentLength { out.removeLast() }
        return out.isEmpty ? "_" : out
    }

    /// Checks a relative path (`productions/p1/audio/0001.wav`) and returns its components.
    ///
    /// - Throws: ``AssetError/pathEscapesRoot(_:)`` for absolute paths or `..`;
    ///   ``AssetError/invalidName(_:)`` for empty paths, empty components, `.`, NUL bytes or
    ///   over-long components.
    public static func components(of relativePath: String) throws(AssetError) -> [String] {
        if relativePath.hasPrefix("/") || relativePath.hasPrefix("~") { throw .pathEscapesRoot(relativePath) }
        if relativePath.isEmpty || relativePath.utf8.contains(0) { throw .invalidName(relativePath) }
        let parts = relativePath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        for part in parts {
            if part == ".." { throw .pathEscapesRoot(relativePath) }
            if part.isEmpty || part == "." || part.utf8.count > maxComponentLength { throw .invalidName(relativePath) }
            if part.hasPrefix(".tmp-") { throw .invalidName(relativePath) }  // reserved for in-flight writes
        }
        return parts
    }
}
