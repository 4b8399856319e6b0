import Foundation
import Postgres
import Testing

@Suite(.timeLimit(.minutes(2))) struct PostgresConfigurationTests {
    @Test func parsesAFullURLWithPercentEncoding() throws {
        let configuration = try PostgresConfiguration(
            url: "postgresql://job%20user:p%40ss%3Aw%2Ford@db.example.com:6543/my%2Fdb?application_name=reparto+worker%21&connect_timeout=3&sslmode=disable"
        )
        #expect(configuration.user == "job user")
        #expect(configuration.password == "p@ss:w/ord")
        #expect(configuration.host == "db.example.com")
        #expect(configuration.port == 6543)
        #expect(configuration.database == "my/db")
        #expect(configuration.applicationName == "reparto worker!")
        #expect(configuration.connectTimeout == 3)
        #expect(configuration.sslMode == .disable)
    }

    @Test func parsesTLSAndGSSAPIModes() throws {
        let configuration = try PostgresConfiguration(
            url: "postgres://u@db.example.com/db?sslmode=verify-full&sslrootcert=%2Fetc%2Freparto%2Froot%20ca.pem&gssencmode=disable")
        #expect(configuration.sslMode == .verifyFull)
        #expect(configuration.sslRootCertificate == "/etc/reparto/root ca.pem")
        #expect(configuration.gssEncryptionMode == .disable)
        #expect(configuration.description == "postgres://u@db.example.com:5432/db?application_name=reparto&sslmode=verify-full&gssencmode=disable")
        let defaults = try PostgresConfiguration(url: "postgres://u@h/db")
        #expect(defaults.sslMode == nil && defaults.sslRootCertificate == nil && defaults.gssEncryptionMode == nil)
    }

    @Test func appliesDefaults() throws {
        let configuration = try PostgresConfiguration(url: "postgres://reparto@127.0.0.1")
        #expect(configuration.port == 5432)
        #expect(configuration.database == "reparto")
        #expect(configuration.password == nil)
        #expect(configuration.applicationName == "reparto")
        #expect(configuration.connectTimeout == 10)
    }

    @Test func parsesBracketedIPv6() throws {
        let configuration = try PostgresConfiguration(url: "postgres://u:pw@[::1]:5433/db")
        #expect(configuration.host == "::1")
        #expect(configuration.port == 5433)
        #expect(configuration.description == "postgres://u@[::1]:5433/db?application_name=reparto")
    }

    @Test(arguments: [
        "mysql://u:p@h/db",
        "postgres://u:p@host:notaport/db",
        "postgres://u:p@host:70000/db",
        "postgres://:secret@host/db",
        "postgres://u:bad%zzsecret@host/db",
        "postgres://u:p@[::1/db",
        "postgres://u:p@h/db?connect_timeout=soon",
        "postgres://u:secret@h/db?sslmode=verify",
        "postgres://u:secret@h/db?sslmode=",
        "postgres://u:secret@h/db?gssencmode=always",
    ])
    func rejectsBadURLsWithoutEchoingThem(url: String) {
        do {
            _ = try PostgresConfiguration(url: url)
            Issue.record("\(url) was accepted")
        } catch {
            #expect(error.kind == .configuration)
            #expect(!error.description.contains("secret"))
            #expect(!error.description.contains(url))
        }
    }

    @Test func descriptionHidesThePassword() throws {
        let configuration = try PostgresConfiguration(url: "postgres://reparto:TopSecret123@127.0.0.1:55432/reparto")
        #expect(configuration.description == "postgres://reparto@127.0.0.1:55432/reparto?application_name=reparto")
        #expect(!"\(configuration)".contains("TopSecret123"))
    }
}
