import Operations
import Postgres
import RepartoConfiguration
import RepartoRuntime
import Testing

/// Where the dashboard and `reparto status` read: `REPARTO_DASHBOARD_DATABASE_URL` when set (a
/// replica), else the cluster's database; the namespace either way. No server.
@Suite(.timeLimit(.minutes(1)))
struct OpsReadDatabaseTests {
    static let cluster = "postgres://reparto@primary.example:5432/reparto"

    @Test func withoutTheVariableTheReadsGoToTheClusterDatabase() throws {
        let values = ConfigurationValues(environment: ["REPARTO_DATABASE_URL": Self.cluster, "REPARTO_DATABASE_PASSWORD": "primary-pw",
                                                       "REPARTO_NAMESPACE": "team-a"])
        #expect(!OpsReadDatabase.isSeparate(values))
        let configuration = try OpsReadDatabase.configuration(values, applicationName: "reparto-status")
        #expect((configuration.host, configuration.port, configuration.user) == ("primary.example", 5432, "reparto"))
        #expect(configuration.password == "primary-pw")
        #expect(configuration.applicationName == "reparto-status")
        #expect(configuration.sessionSettings == [ClusterSettings.namespaceSetting: "team-a"])
    }

    @Test func theVariableMovesTheReadsWithItsOwnPasswordAndTheSameNamespace() throws {
        let values = ConfigurationValues(environment: [
            "REPARTO_DATABASE_URL": Self.cluster, "REPARTO_DATABASE_PASSWORD": "primary-pw", "REPARTO_NAMESPACE": "team-a",
            "REPARTO_DASHBOARD_DATABASE_URL": "postgres://reparto_web@replica.example:5433/reparto?sslmode=require",
            "REPARTO_DASHBOARD_DATABASE_PASSWORD": "replica-pw",
        ])
        #expect(OpsReadDatabase.isSeparate(values))
        let configuration = try OpsReadDatabase.configuration(values, applicationName: "reparto-dashboard")
        #expect((configuration.host, configuration.port, configuration.user) == ("replica.example", 5433, "reparto_web"))
        #expect(configuration.password == "replica-pw", "its own password, never the cluster's")
        #expect(configuration.sslMode == .require)
        #expect(configuration.sessionSettings == [ClusterSettings.namespaceSetting: "team-a"], "row-level security sees the same namespace")
    }

    @Test func theVariableWorksFromTheEnvFileToo() throws {
        let values = ConfigurationValues(environment: ["REPARTO_DATABASE_URL": Self.cluster],
                                         envFile: EnvFile(path: ".reparto/env", values: [
                                             "REPARTO_DASHBOARD_DATABASE_URL": "postgres://reader@replica.example/reparto",
                                         ]))
        #expect(try OpsReadDatabase.configuration(values, applicationName: "reparto-status").host == "replica.example")
    }

    @Test(arguments: [
        ("mysql://reader:pw-SECRET-1@replica.example/reparto", "the database URL must start with postgres:// or postgresql://"),
        ("postgres://reader:pw-SECRET-1@replica.example:99999/reparto", "the port in the database URL is not a number between 1 and 65535"),
        ("postgres://:pw-SECRET-1@replica.example/reparto", "the database URL has no user name"),
    ])
    func aMalformedURLNamesTheVariableAndNotTheValue(_ url: String, _ reason: String) throws {
        let values = ConfigurationValues(environment: ["REPARTO_DATABASE_URL": Self.cluster, "REPARTO_DASHBOARD_DATABASE_URL": url])
        let error = try #require(throws: ConfigurationError.self) {
            try OpsReadDatabase.configuration(values, applicationName: "reparto-status")
        }
        #expect(error == .malformedURL(variable: "REPARTO_DASHBOARD_DATABASE_URL", reason: reason))
        #expect(error.description == "REPARTO_DASHBOARD_DATABASE_URL is malformed: \(reason)")
        #expect(!error.description.contains("SECRET") && !"\(error)".contains("replica.example"))
    }

    @Test func aMalformedClusterURLIsNamedWhenItIsTheOneRead() throws {
        let values = ConfigurationValues(environment: ["REPARTO_DATABASE_URL": "http://reparto:pw-SECRET@primary.example/reparto"])
        let error = try #require(throws: ConfigurationError.self) {
            try OpsReadDatabase.configuration(values, applicationName: "reparto-status")
        }
        #expect(error.description == "REPARTO_DATABASE_URL is malformed: the database URL must start with postgres:// or postgresql://")
    }
}
