import Foundation
import RepartoConfiguration
import Testing

@Suite("env files: one parser, located as reparto always did", .timeLimit(.minutes(1)))
struct EnvFileTests {
    @Test func parsesWhatScriptsServicesWrites() {
        let text = """
            # Written by scripts/services: local services on loopback.
            REPARTO_AMQP_URL=amqp://reparto:pw@127.0.0.1:5672/%2f
            REPARTO_DATABASE_URL=postgres://reparto:a=b@127.0.0.1:5432/reparto
            REPARTO_ASSETS=/tmp/assets

            """
        #expect(EnvFile.parse(text) == [
            "REPARTO_AMQP_URL": "amqp://reparto:pw@127.0.0.1:5672/%2f",
            "REPARTO_DATABASE_URL": "postgres://reparto:a=b@127.0.0.1:5432/reparto",
            "REPARTO_ASSETS": "/tmp/assets",
        ])
    }

    @Test func skipsCommentsBlanksAndLinesWithoutAnEqualsSign() {
        let text = "  # indented comment\n\nnot a variable\n=no key\nA=1\n"
        #expect(EnvFile.parse(text) == ["A": "1"])
    }

    @Test func acceptsExportCRLFAndWhitespaceAroundTheKey() {
        let text = "export A=1\r\n  B =two words \r\nC=\r\n"
        #expect(EnvFile.parse(text) == ["A": "1", "B": "two words ", "C": ""])
    }

    @Test func theLastOfARepeatedKeyWins() {
        #expect(EnvFile.parse("A=1\nA=2\n") == ["A": "2"])
    }

    @Test func anExplicitFileMustBeReadable() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path("missing.env")
        #expect(throws: ConfigurationError.unreadableEnvFile(path: missing, reason: "no such file")) {
            try EnvFile.locate(explicitPath: missing)
        }
        let error = ConfigurationError.unreadableEnvFile(path: missing, reason: "no such file")
        #expect(error.description == "cannot read the env file \(missing): no such file")
    }

    @Test func theDefaultFileIsOptionalAndFoundBelowTheDirectory() throws {
        let directory = try TemporaryDirectory()
        #expect(try EnvFile.locate(explicitPath: nil, directory: directory.url.path) == nil)
        try directory.write("A=from-default\n", to: ".reparto/env")
        let found = try #require(try EnvFile.locate(explicitPath: nil, directory: directory.url.path))
        #expect(found.values == ["A": "from-default"])
        #expect(found.path == directory.path(".reparto/env"))
    }

    @Test func anExplicitFileReplacesTheDefaultOne() throws {
        let directory = try TemporaryDirectory()
        try directory.write("A=from-default\nB=only-in-default\n", to: ".reparto/env")
        let other = try directory.write("A=from-explicit\n", to: "other.env")
        let found = try #require(try EnvFile.locate(explicitPath: other, directory: directory.url.path))
        #expect(found.values == ["A": "from-explicit"])
        let values = try ConfigurationValues.load(environment: [:], envFile: other, directory: directory.url.path)
        #expect(values["A"] == "from-explicit")
        #expect(values["B"] == nil, "the default file is not read when --env-file names another")
    }
}
