import Foundation
import Operations
import Testing

@Suite("Passwords from files (Docker and Kubernetes secrets)", .timeLimit(.minutes(2)))
struct SecretValueTests {
    private func temporaryFile(_ contents: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-secret-\(UUID().uuidString)").path
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func resolve(_ environment: [String: String]) throws(SecretValue.Failure) -> String? {
        try SecretValue.resolve(variable: "REPARTO_DATABASE_PASSWORD",
                                fileVariable: OperationsEndpoints.databasePasswordFileVariable,
                                lookup: { environment[$0] })
    }

    @Test func theFileIsReadAndOneTrailingNewlineTrimmed() throws {
        let path = try temporaryFile("s3cr et\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try resolve(["REPARTO_DATABASE_PASSWORD_FILE": path]) == "s3cr et")
    }

    @Test func crlfAndMissingNewlineAndOnlyOneNewlineTrimmed() throws {
        for (contents, expected) in [("a\r\n", "a"), ("a", "a"), ("a\n\n", "a\n"), (" a \n", " a ")] {
            let path = try temporaryFile(contents)
            defer { try? FileManager.default.removeItem(atPath: path) }
            #expect(try SecretValue.read(path, fileVariable: "X_FILE") == expected)
        }
    }

    @Test func theVariableAloneIsUsed() throws {
        #expect(try resolve(["REPARTO_DATABASE_PASSWORD": "direct"]) == "direct")
        #expect(try resolve([:]) == nil)
        #expect(try resolve(["REPARTO_DATABASE_PASSWORD": "", "REPARTO_DATABASE_PASSWORD_FILE": ""]) == nil)
    }

    @Test func bothSetIsAnError() throws {
        let path = try temporaryFile("x")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: SecretValue.Failure.ambiguous(variable: "REPARTO_DATABASE_PASSWORD",
                                                      fileVariable: "REPARTO_DATABASE_PASSWORD_FILE")) {
            try resolve(["REPARTO_DATABASE_PASSWORD": "a", "REPARTO_DATABASE_PASSWORD_FILE": path])
        }
    }

    @Test func anUnreadableFileNamesTheVariableButNotTheSecret() throws {
        do {
            _ = try resolve(["REPARTO_DATABASE_PASSWORD_FILE": "/nonexistent/reparto/secret"])
            Issue.record("expected an error")
        } catch {
            guard case .unreadable(let variable, let path, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(variable == "REPARTO_DATABASE_PASSWORD_FILE")
            #expect(path == "/nonexistent/reparto/secret")
            #expect(error.description.contains("REPARTO_DATABASE_PASSWORD_FILE"))
        }
    }
}
