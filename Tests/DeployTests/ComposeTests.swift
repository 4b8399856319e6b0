import Foundation
import Operations
import Testing

/// deploy/compose.yaml: the one-host deployment.
@Suite(.timeLimit(.minutes(2))) struct ComposeTests {
    let compose: YAMLValue
    let services: [String: YAMLValue]

    init() throws {
        let documents = try Deploy.yamlDocuments("deploy/compose.yaml")
        compose = try #require(documents.first)
        #expect(documents.count == 1)
        services = compose["services"]?.map ?? [:]
    }

    func service(_ name: String) throws -> YAMLValue {
        try #require(services[name], "compose service \(name)")
    }

    /// A service's command as words (exec form, or a string split on spaces).
    func command(_ service: YAMLValue) -> [String] {
        if case .string(let text)? = service["command"] { return text.split(separator: " ").map(String.init) }
        return service["command"]?.list.compactMap(\.text) ?? []
    }

    /// Environment as a map (both the map and the `KEY=value` list forms).
    func environment(_ service: YAMLValue) -> [String: String] {
        if let map = service["environment"]?.map { return map.compactMapValues(\.text) }
        var values: [String: String] = [:]
        for item in service["environment"]?.list.compactMap(\.text) ?? [] {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            values[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return values
    }

    func secretNames(_ service: YAMLValue) -> [String] {
        (service["secrets"]?.list ?? []).compactMap { $0.text ?? $0["source"]?.text }
    }

    @Test func hasEveryRoleAndTheEngines() throws {
        for name in ["rabbitmq", "postgres", "migrate", "coordinator", "worker", "dashboard"] {
            _ = try service(name)
        }
        #expect(command(try service("migrate")).first == "migrate")
        #expect(command(try service("coordinator")).first == "coordinator")
        #expect(command(try service("worker")).first == "worker")
        #expect(command(try service("dashboard")).first == "dashboard")
        #expect(try service("migrate")["restart"]?.text == "no", "migrate runs once")
        #expect((try service("worker")["deploy", "replicas"]?.int ?? 0) >= 1, "workers set deploy.replicas")
        #expect((try service("coordinator")["deploy", "replicas"]?.int ?? 0) >= 2, "two coordinators: leader election")
    }

    @Test func everythingStartsAfterTheMigrationSucceeded() throws {
        #expect(try service("migrate")["depends_on", "postgres", "condition"]?.text == "service_healthy")
        for name in ["coordinator", "worker", "dashboard"] {
            #expect(try service(name)["depends_on", "migrate", "condition"]?.text == "service_completed_successfully",
                    "\(name) depends on migrate completing successfully")
        }
        for name in ["coordinator", "worker"] {
            #expect(try service(name)["depends_on", "rabbitmq", "condition"]?.text == "service_healthy")
        }
    }

    @Test func healthChecksUseTheOperationsEndpoints() throws {
        for (name, port) in [("worker", OperationsEndpoints.defaultMetricsPort),
                             ("coordinator", OperationsEndpoints.defaultMetricsPort),
                             ("dashboard", OperationsEndpoints.defaultDashboardPort)] {
            let test = try service(name)["healthcheck", "test"]?.list.compactMap(\.text) ?? []
            let url = "http://127.0.0.1:\(port)\(OperationsEndpoints.readyPath)"
            #expect(test.contains(url) || (test.first == "CMD-SHELL" && test.dropFirst().joined().hasSuffix(" " + url)),
                    "\(name) health check requests \(url): \(test)")
        }
        #expect(command(try service("dashboard")).contains(String(OperationsEndpoints.defaultDashboardPort)))
        #expect(environment(try service("worker"))[OperationsEndpoints.metricsPortVariable] == String(OperationsEndpoints.defaultMetricsPort))
        #expect(environment(try service("worker"))[OperationsEndpoints.logFormatVariable] == "json")
    }

    /// Inside its container the dashboard must bind 0.0.0.0 for the published port to reach it, so
    /// it has the token (a secret file) and its health check sends it, on curl's stdin; the port is
    /// published on the host's loopback only.
    @Test func theDashboardRequiresItsTokenAndIsPublishedOnLoopback() throws {
        let dashboard = try service("dashboard")
        let host = Deploy.flagValue("--host", in: command(dashboard))
        let tokenFile = environment(dashboard)["REPARTO_DASHBOARD_TOKEN_FILE"]
        #expect(host == "127.0.0.1" || tokenFile != nil, "bound to \(host ?? "127.0.0.1 (default)") without REPARTO_DASHBOARD_TOKEN_FILE")
        #expect(environment(dashboard)["REPARTO_DASHBOARD_TOKEN"] == nil, "the token is a file, not a value")
        if let tokenFile {
            let secret = String(tokenFile.dropFirst("/run/secrets/".count))
            #expect(secretNames(dashboard).contains(secret))
            let test = (dashboard["healthcheck", "test"]?.list.compactMap(\.text) ?? []).joined(separator: " ")
            #expect(test.contains("Authorization: Bearer") && test.contains("$$(cat \(tokenFile))") && test.contains("-H @-"),
                    "the health check sends the token on stdin: \(test)")
        }
        for port in dashboard["ports"]?.list.compactMap(\.text) ?? [] {
            #expect(port.hasPrefix("127.0.0.1:"), "published on loopback only: \(port)")
        }
    }

    @Test func workersStopWithinTheGracePeriod() throws {
        let worker = try service("worker")
        let drain = try #require(Deploy.flagValue("--drain-timeout", in: command(worker)).flatMap(Double.init),
                                 "the worker passes --drain-timeout explicitly")
        let grace = try #require(worker["stop_grace_period"]?.text.flatMap(Deploy.seconds), "worker stop_grace_period")
        #expect(grace > drain, "stop_grace_period \(grace) s > --drain-timeout \(drain) s")
        if let signal = worker["stop_signal"]?.text { #expect(signal == "SIGTERM") }
    }

    @Test func secretsAreFilesNeverValues() throws {
        let declared = compose["secrets"]?.map ?? [:]
        for (name, secret) in declared {
            #expect(secret["file"]?.text?.hasPrefix("./secrets/") == true, "secret \(name) is a file under deploy/secrets/")
        }
        for (name, service) in services {
            let attached = Set(secretNames(service))
            #expect(attached.isSubset(of: Set(declared.keys)), "\(name): every secret it uses is declared")
            for (key, value) in environment(service) {
                let upper = key.uppercased()
                if upper.contains("PASSWORD") || upper.contains("SECRET") || upper.contains("TOKEN") || upper.hasSuffix("_KEY") {
                    #expect(key.hasSuffix("_FILE"), "\(name): \(key) names a file, not a value")
                }
                if key.hasSuffix("_FILE") {
                    let secret = value.hasPrefix("/run/secrets/") ? String(value.dropFirst("/run/secrets/".count)) : ""
                    #expect(attached.contains(secret), "\(name): \(key)=\(value) is one of its secrets")
                }
            }
        }
    }

    @Test func sharedAssetVolumeIsMountedAtREPARTO_ASSETS() throws {
        for name in ["worker", "migrate", "coordinator"] {
            let service = try service(name)
            let assets = try #require(environment(service)["REPARTO_ASSETS"], "\(name) sets REPARTO_ASSETS")
            let mounts = service["volumes"]?.list.compactMap(\.text) ?? []
            #expect(mounts.contains { $0.hasSuffix(":" + assets) }, "\(name) mounts the asset volume at \(assets)")
        }
        #expect(compose["volumes"]?.map?["assets"] != nil, "a named asset volume")
    }

    @Test func rabbitMQHasManagementAndKeepsClassicWorkQueues() throws {
        let rabbit = try service("rabbitmq")
        #expect(rabbit["image"]?.text?.contains("management") == true, "the management plugin (KEDA, operators)")
        let plugins = try Deploy.text("deploy/rabbitmq/enabled_plugins")
        #expect(plugins.contains("rabbitmq_management"))
        let configuration = try Deploy.text("deploy/rabbitmq/20-reparto.conf")
        let settings = configuration.split(separator: "\n").filter { !$0.hasPrefix("#") }
        // Work queues are classic priority queues; only reparto.dead is a quorum queue (JobTopology).
        #expect(!settings.contains { $0.contains("default_queue_type") }, "no vhost default queue type")
        #expect(configuration.contains("reparto.dead") && configuration.contains("quorum"))
        #expect(Deploy.sourcesContain("\"x-queue-type\": .string(\"quorum\")"), "the code still declares reparto.dead as a quorum queue")
        for target in rabbit["configs"]?.list.compactMap({ $0["source"]?.text }) ?? [] {
            #expect(compose["configs", target, "file"]?.text != nil, "config \(target) is declared")
        }
    }
}
