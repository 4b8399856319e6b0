import Foundation
import RepartoConfiguration
import Testing

@Suite("one precedence rule: flag > environment > env file", .timeLimit(.minutes(1)))
struct PrecedenceTests {
    private let file = EnvFile(path: "test.env", values: ["A": "file", "B": "file", "C": "file", "EMPTY_IN_ENV": "file"])

    @Test func eachLayerWinsOverTheOnesBelow() {
        let values = ConfigurationValues(flags: ["A": "flag"], environment: ["A": "env", "B": "env"], envFile: file)
        #expect(values["A"] == "flag")
        #expect(values["B"] == "env")
        #expect(values["C"] == "file")
        #expect(values["D"] == nil)
        #expect(values.layer(of: "A") == .flag)
        #expect(values.layer(of: "B") == .environment)
        #expect(values.layer(of: "C") == .envFile)
        #expect(values.layer(of: "D") == nil)
    }

    @Test func emptyValuesAndAbsentFlagsCountAsUnset() {
        let values = ConfigurationValues(flags: ["A": nil, "B": ""], environment: ["EMPTY_IN_ENV": ""], envFile: file)
        #expect(values["A"] == "file")
        #expect(values["B"] == "file")
        #expect(values["EMPTY_IN_ENV"] == "file")
    }

    @Test func variablesIsTheSameMergedView() {
        let values = ConfigurationValues(flags: ["A": "flag"], environment: ["B": "env", "PATH": "/usr/bin"], envFile: file)
        #expect(values.variables == ["A": "flag", "B": "env", "C": "file", "EMPTY_IN_ENV": "file", "PATH": "/usr/bin"])
    }

    @Test func loadReadsTheDefaultEnvFileBelowTheDirectory() throws {
        let directory = try TemporaryDirectory()
        try directory.write("OPENAI_API_KEY=sk-from-file\nREPARTO_NAMESPACE=file-ns\n", to: ".reparto/env")
        let values = try ConfigurationValues.load(flags: ["REPARTO_NAMESPACE": "flag-ns"], environment: [:],
                                                  directory: directory.url.path)
        #expect(values["REPARTO_NAMESPACE"] == "flag-ns")
        #expect(try values.secret("OPENAI_API_KEY")?.value == "sk-from-file")
        #expect(values.envFile?.path == directory.path(".reparto/env"))
    }

    @Test func urlFlagsMustNotCarryAPassword() throws {
        #expect(throws: ConfigurationError.passwordInFlag(flag: "--amqp-url", passwordVariable: "REPARTO_AMQP_PASSWORD")) {
            try ConfigurationValues.refusePassword(inURL: "amqp://reparto:hunter2@127.0.0.1:5672/%2f", flag: "--amqp-url",
                                                   passwordVariable: "REPARTO_AMQP_PASSWORD")
        }
        #expect(throws: ConfigurationError.passwordInFlag(flag: "--database-url", passwordVariable: "REPARTO_DATABASE_PASSWORD")) {
            try ConfigurationValues.refusePassword(inURL: "postgres://u:hunter2@127.0.0.1/db", flag: "--database-url",
                                                   passwordVariable: "REPARTO_DATABASE_PASSWORD")
        }
        try ConfigurationValues.refusePassword(inURL: "postgres://u@127.0.0.1/db", flag: "--database-url",
                                               passwordVariable: "REPARTO_DATABASE_PASSWORD")
        try ConfigurationValues.refusePassword(inURL: nil, flag: "--database-url", passwordVariable: "REPARTO_DATABASE_PASSWORD")
        let line = ConfigurationError.passwordInFlag(flag: "--database-url", passwordVariable: "REPARTO_DATABASE_PASSWORD").description
        #expect(line.contains("--database-url must not contain a password"))
        #expect(!line.contains("hunter2"))
    }
}
