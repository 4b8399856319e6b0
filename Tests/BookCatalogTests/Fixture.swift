import Foundation
import Testing

/// The sample exports in Fixtures/, written for these tests.
enum Fixture {
    static func bytes(_ name: String, extension ext: String = "csv") throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: ext, subdirectory: "Fixtures"))
        return Array(try Data(contentsOf: url))
    }

    /// The 1-based numbers of the lines of `bytes` (split at LF, a CR before it dropped) for which
    /// `isRowStart` holds: an independent count of a fixture's rows.
    static func lines(of bytes: [UInt8], where isRowStart: (String) -> Bool) -> [Int] {
        bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated().compactMap { index, line in
            let text = String(decoding: line.last == 0x0D ? line.dropLast() : line, as: UTF8.self)
            return isRowStart(text) ? index + 1 : nil
        }
    }
}
