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

    /// A test that needs a server, run by `scripts/test --unit` (which sets
    /// `REPARTO_TEST_NO_SERVICES=1`): it belongs with the server tests.
    public struct ServerNotAllowed: Error, CustomStringConvertible {
        public let name: String
        public var description: String {
            "this test reads \(name): it needs a server, but `scripts/test --unit` runs only tests that need none; "
                + "list its suite in SERVER_TESTS (scripts/test) and docs/testing.md"
        }
    }

    /// True under `scripts/test --unit`.
    public static var servicesForbidden: Bool { ProcessInfo.processInfo.environment["REPARTO_TEST_NO_SERVICES"] == "1" }

    private static func server(_ name: String) throws -> String {
        if servicesForbidden { throw ServerNotAllowed(name: name) }
        return try value(name)
    }

    public static func amqpURL() throws -> String { try server("REPARTO_AMQP_URL") }
    public static func databaseURL() throws -> String { try server("REPARTO_DATABASE_URL") }
    /// The shared asset root of `.reparto/env`. Tests should not write there (the demo and every
    /// other test use it): a ``TestCluster`` has an asset root of its own, or use a temporary one.
    public static func assetsRoot() throws -> String { try value("REPARTO_ASSETS") }

    /// A short random suffix for names that must not collide between tests.
    public static func uniqueName(_ prefix: String) -> String {
        "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"
    }
}
