import Foundation
import RepartoConfiguration
import Testing

@Suite("one secret rule: a value or its _FILE form, never both, never printed", .timeLimit(.minutes(1)))
struct SecretRuleTests {
    private let secretText = "s3cret-VALUE-42"

    @Test func neitherFormIsNil() throws {
        #expect(try ConfigurationValues(environment: [:]).secret("REPARTO_DATABASE_PASSWORD") == nil)
        #expect(try ConfigurationValues(environment: ["REPARTO_DATABASE_PASSWORD": ""]).secret("REPARTO_DATABASE_PASSWORD") == nil)
    }

    @Test func theValueIsTakenVerbatim() throws {
        let values = ConfigurationValues(environment: ["OPENAI_API_KEY": " \(secretText) "])
        #expect(try values.secret("OPENAI_API_KEY")?.value == " \(secretText) ")
    }

    @Test(arguments: [("\n", ""), ("\r\n", ""), ("\n\n", "\n"), ("", ""), (" \n", " ")])
    func theFileLosesOneTrailingNewline(ending: String, kept: String) throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(secretText + ending, to: "secret")
        let values = ConfigurationValues(environment: ["REPARTO_DATABASE_PASSWORD_FILE": path])
        #expect(try values.secret("REPARTO_DATABASE_PASSWORD")?.value == secretText + kept)
    }

    @Test func bothFormsAreAnErrorNamingBoth() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(secretText, to: "secret")
        let expected = ConfigurationError.ambiguousSecret(variable: "OPENAI_API_KEY", fileVariable: "OPENAI_API_KEY_FILE")
        // In one layer, and across layers: the rule is about the merged view.
        #expect(throws: expected) {
            try ConfigurationValues(environment: ["OPENAI_API_KEY": secretText, "OPENAI_API_KEY_FILE": path]).secret("OPENAI_API_KEY")
        }
        #expect(throws: expected) {
            try ConfigurationValues(environment: ["OPENAI_API_KEY": secretText],
                                    envFile: EnvFile(path: "test.env", values: ["OPENAI_API_KEY_FILE": path])).secret("OPENAI_API_KEY")
        }
        #expect(expected.description == "both OPENAI_API_KEY and OPENAI_API_KEY_FILE are set: set only one")
    }

    @Test func aMissingFileIsAnErrorNamingTheVariableAndPath() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("no-such-secret")
        #expect(throws: ConfigurationError.unreadableSecretFile(fileVariable: "ELEVENLABS_API_KEY_FILE", path: path, reason: "no such file")) {
            try ConfigurationValues(environment: ["ELEVENLABS_API_KEY_FILE": path]).secret("ELEVENLABS_API_KEY")
        }
    }

    @Test func anUnreadableFileIsAnErrorNamingTheVariableAndPath() throws {
        // A directory cannot be read as a file, even by root (whom chmod 000 would not stop).
        let directory = try TemporaryDirectory()
        do {
            _ = try ConfigurationValues(environment: ["REPARTO_AMQP_PASSWORD_FILE": directory.url.path]).secret("REPARTO_AMQP_PASSWORD")
            Issue.record("a directory was read as a secret")
        } catch {
            guard case .unreadableSecretFile(let variable, let path, _) = error else { Issue.record("got \(error)"); return }
            #expect(variable == "REPARTO_AMQP_PASSWORD_FILE")
            #expect(path == directory.url.path)
            #expect(error.description.hasPrefix("cannot read REPARTO_AMQP_PASSWORD_FILE (\(directory.url.path)): "))
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func anEmptyOrNonUTF8FileIsAnError() throws {
        let directory = try TemporaryDirectory()
        let empty = try directory.write("\n", to: "empty")
        #expect(throws: ConfigurationError.emptySecretFile(fileVariable: "OPENAI_API_KEY_FILE", path: empty)) {
            try ConfigurationValues(environment: ["OPENAI_API_KEY_FILE": empty]).secret("OPENAI_API_KEY")
        }
        let binary = directory.path("binary")
        try Data([0xFF, 0xFE, 0x00, 0xC3]).write(to: URL(fileURLWithPath: binary))
        #expect(throws: ConfigurationError.unreadableSecretFile(fileVariable: "OPENAI_API_KEY_FILE", path: binary, reason: "not UTF-8 text")) {
            try ConfigurationValues(environment: ["OPENAI_API_KEY_FILE": binary]).secret("OPENAI_API_KEY")
        }
    }

    @Test func aFileNamedInTheEnvFileIsRead() throws {
        let directory = try TemporaryDirectory()
        let secretPath = try directory.write(secretText + "\n", to: "secret")
        let envPath = try directory.write("REPARTO_DATABASE_PASSWORD_FILE=\(secretPath)\n", to: "test.env")
        let values = try ConfigurationValues.load(environment: [:], envFile: envPath)
        #expect(try values.secret("REPARTO_DATABASE_PASSWORD")?.value == secretText)
    }
}
