import Foundation
import Postgres
import Testing

/// Connection settings for the real test server: `REPARTO_DATABASE_URL`, or the value written by
/// `scripts/services` into `.reparto/env` at the package root. No server → the tests fail.
enum TestDatabase {
    static let url: String = {
        if let url = ProcessInfo.processInfo.environment["REPARTO_DATABASE_URL"], !url.isEmpty {
            return url
        }
        // Tests/PostgresTests/TestSupport.swift → package root
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let envFile = root.appendingPathComponent(".reparto/env")
        if let text = try? String(contentsOf: envFile, encoding: .utf8) {
            for line in text.split(separator: "\n") where line.hasPrefix("REPARTO_DATABASE_URL=") {
                return String(line.dropFirst("REPARTO_DATABASE_URL=".count))
            }
        }
        return "postgres://reparto@127.0.0.1:55432/reparto-url-not-configured"
    }()

    static func configuration(applicationName: String = "reparto-postgres-tests") throws -> PostgresConfiguration {
        var configuration = try PostgresConfiguration(url: url)
        configuration.applicationName = applicationName
        configuration.connectTimeout = 5
        return configuration
    }
}

/// Runs blocking libpq work on a dedicated thread, never on the cooperative pool.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.start()
    }
}

/// Opens a connection to the test server on the current (non-async) thread.
@available(*, noasync)
func connect(applicationName: String = "reparto-postgres-tests") throws -> PostgresConnection {
    try PostgresConnection.connect(TestDatabase.configuration(applicationName: applicationName))
}

/// A name unique to this test run, for tables, schemas, channels and application names.
func uniqueName(_ prefix: String) -> String {
    "\(prefix)_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12))"
}
