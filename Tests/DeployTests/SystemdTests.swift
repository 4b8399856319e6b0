import Foundation
import Operations
import Testing

/// A systemd unit file: sections of keys, each key with all its values in order.
struct SystemdUnit {
    var sections: [String: [String: [String]]] = [:]

    init(_ text: String) throws {
        var section: String?
        var pending = ""
        for raw in text.components(separatedBy: "\n") {
            var line = raw.trimmingCharacters(in: .whitespaces)
            if pending.isEmpty && (line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";")) { continue }
            if line.hasSuffix("\\") {
                pending += line.dropLast() + " "
                continue
            }
            line = pending + line
            pending = ""
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else { throw DeployTestError("bad section header: \(line)") }
                section = String(line.dropFirst().dropLast())
                sections[section!, default: [:]] = sections[section!] ?? [:]
                continue
            }
            guard let section else { throw DeployTestError("key outside a section: \(line)") }
            guard let eq = line.firstIndex(of: "=") else { throw DeployTestError("not KEY=value: \(line)") }
            let key = line[..<eq].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber }) else { throw DeployTestError("bad key: \(line)") }
            sections[section, default: [:]][key, default: []].append(value)
        }
        if !pending.isEmpty { throw DeployTestError("dangling continuation line") }
    }

    func values(_ section: String, _ key: String) -> [String] { sections[section]?[key] ?? [] }
    func value(_ section: String, _ key: String) -> String? { values(section, key).last }

    /// `Environment=A=1 B=2` assignments.
    var environment: [String: String] {
        var result: [String: String] = [:]
        for assignment in values("Service", "Environment").flatMap({ $0.split(separator: " ") }) {
            let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { result[parts[0]] = parts[1] }
        }
        return result
    }
}

/// deploy/systemd: units that run each role hardened, with passwords as credentials.
@Suite(.timeLimit(.minutes(2))) struct SystemdTests {
    static let units = ["reparto-worker@.service", "reparto-coordinator.service",
                        "reparto-dashboard.service", "reparto-migrate.service"]

    func unit(_ name: String) throws -> SystemdUnit {
        try SystemdUnit(try Deploy.text("deploy/systemd/\(name)"))
    }

    func execStart(_ unit: SystemdUnit) -> [String] {
        (unit.value("Service", "ExecStart") ?? "").split(separator: " ").map(String.init)
    }

    @Test(arguments: units) func parsesWithTheRequiredSectionsAndKeys(_ name: String) throws {
        let unit = try unit(name)
        for section in ["Unit", "Service", "Install"] {
            #expect(unit.sections[section] != nil, "\(name) has [\(section)]")
        }
        #expect(unit.value("Unit", "Description") != nil)
        #expect(unit.value("Install", "WantedBy") != nil)
        let command = execStart(unit)
        let role = name.replacingOccurrences(of: "reparto-", with: "").replacingOccurrences(of: "@.service", with: "")
            .replacingOccurrences(of: ".service", with: "")
        #expect(command.prefix(2) == ["/usr/local/bin/reparto", role], "\(name): ExecStart runs reparto \(role): \(command)")
        #expect(unit.value("Service", "User") == "reparto", "\(name) runs as the reparto user")
        #expect(unit.values("Service", "EnvironmentFile").contains("/etc/reparto/env"))
        #expect(unit.value("Service", "KillSignal") == "SIGTERM")
        #expect(unit.value("Service", "NoNewPrivileges") == "yes")
        #expect(unit.value("Service", "ProtectSystem") == "strict")
        #expect(unit.value("Service", "PrivateTmp") == "yes")
        #expect(unit.value("Service", "CapabilityBoundingSet") == "", "\(name) drops every capability")
        if name == "reparto-migrate.service" {
            #expect(unit.value("Service", "Type") == "oneshot")
        } else {
            #expect(unit.value("Service", "Restart") == "on-failure")
        }
    }

    /// Passwords arrive as credentials (`LoadCredential=`) named by `*_PASSWORD_FILE=%d/…`.
    @Test(arguments: units) func passwordsAreCredentials(_ name: String) throws {
        let unit = try unit(name)
        let credentials = Set(unit.values("Service", "LoadCredential").compactMap { $0.split(separator: ":").first.map(String.init) })
        let files = unit.environment.filter { $0.key.hasSuffix("_FILE") }
        #expect(!files.isEmpty, "\(name) passes passwords as files")
        for (variable, path) in files {
            #expect(path.hasPrefix("%d/") && credentials.contains(String(path.dropFirst(3))),
                    "\(name): \(variable)=\(path) names a LoadCredential")
        }
        for (variable, _) in unit.environment where variable.contains("PASSWORD") {
            #expect(variable.hasSuffix("_FILE"), "\(name): \(variable) is a file, not a value")
        }
        for credential in unit.values("Service", "LoadCredential") {
            let source = credential.split(separator: ":", maxSplits: 1).last.map(String.init) ?? ""
            #expect(source.hasPrefix("/etc/reparto/credentials/"), "\(name): credential read from /etc/reparto/credentials")
        }
    }

    @Test func workerTemplateDrainsWithinTimeoutStopSecAndWritesOnlyAssets() throws {
        let worker = try unit("reparto-worker@.service")
        let drain = try #require(Deploy.flagValue("--drain-timeout", in: execStart(worker)).flatMap(Double.init),
                                 "the worker passes --drain-timeout explicitly")
        let stop = try #require(worker.value("Service", "TimeoutStopSec").flatMap(Deploy.seconds))
        #expect(stop > drain, "TimeoutStopSec \(stop) s > --drain-timeout \(drain) s")
        #expect(worker.value("Service", "KillMode") == "mixed", "SIGTERM to the worker only; its children finish with it")
        let environment = try Deploy.text("deploy/systemd/env.example")
        let assets = try #require(Deploy.matches(#"(?m)^REPARTO_ASSETS=(\S+)$"#, in: environment).first)
        #expect(worker.values("Service", "ReadWritePaths").contains(assets), "the worker may write \(assets)")
        #expect(worker.values("Unit", "RequiresMountsFor").contains(assets), "the worker waits for the asset mount")
        #expect(worker.values("Service", "EnvironmentFile").contains { $0.contains("%i") }, "per-instance settings")
        for name in ["reparto-coordinator.service", "reparto-dashboard.service"] {
            let unit = try unit(name)
            #expect(unit.values("Service", "ReadWritePaths").isEmpty, "\(name) writes no files")
            #expect(unit.value("Service", "TimeoutStopSec").flatMap(Deploy.seconds) != nil)
        }
    }

    @Test func dashboardListensOnItsPortWithTheReadOnlyLogin() throws {
        let dashboard = try unit("reparto-dashboard.service")
        #expect(Deploy.flagValue("--port", in: execStart(dashboard)) == String(OperationsEndpoints.defaultDashboardPort))
        #expect(Deploy.flagValue("--host", in: execStart(dashboard)) ?? "127.0.0.1" == "127.0.0.1", "the dashboard listens on loopback")
        #expect(dashboard.environment.keys.allSatisfy { $0.hasPrefix("REPARTO_DASHBOARD_") },
                "the dashboard gets only its own login's password")
        let environment = try Deploy.text("deploy/systemd/env.example")
        #expect(environment.contains("\(OperationsEndpoints.metricsPortVariable)=\(OperationsEndpoints.defaultMetricsPort)"))
        #expect(environment.contains("\(OperationsEndpoints.logFormatVariable)=json"))
    }
}
