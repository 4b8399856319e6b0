import Foundation
import Testing

/// The sample exports in Fixtures/, written for these tests.
enum Fixture {
    static func bytes(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "csv", subdirectory: "Fixtures"))
        return Array(try Data(contentsOf: url))
    }
}
