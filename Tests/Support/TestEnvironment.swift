import Foundation
import RepartoConfiguration

/// Where the integration tests find the services `scripts/services up` started.
///
/// Reads `REPARTO_AMQP_URL`, `REPARTO_DATABASE_URL` and `REPARTO_ASSETS` from the environment,
/// falling back to the repository's `.reparto/env`. A missing value is an error, so a test that
/// needs a server fails (never skips) when the server is not there.
public enum TestEnvironment {
    public struct Missing: Error, CustomStringConvertible {
        public let name: String
        public var description: String { "\(name) is not set and .reparto/env has no value: run scripts/services up" }
    }

    /// The repository root, found from this file's path.
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private static let fileValues: [String: String] = {
        let file = repositoryRoot.appendingPathComponent(".reparto/env")
        return (try? EnvFile(contentsOf: file.path))?.values ?? [:]
    }()

    public static func value(_ name: String) throws -> String {
        if let value = ProcessInfo.processInfo.environment[name], !value.isEmpty { return value }
        if let value = fileValues[name], !value.isEmpty { return value }
        throw Missing(name: name)
    }

    public static func amqpURL() throws -> String { try value("REPARTO_AMQP_URL") }
    public static func databaseURL() throws -> String { try value("REPARTO_DATABASE_URL") }
    public static func assetsRoot() throws -> String { try value("REPARTO_ASSETS") }

    /// A short random suffix for names that must not collide between tests.
    public static func uniqueName(_ prefix: String) -> String {
        "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"
    }
}
