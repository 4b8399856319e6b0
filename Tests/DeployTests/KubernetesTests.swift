import Foundation
import Operations
import Testing

/// deploy/kubernetes: parseable, complete objects that reference each other consistently and
/// use the ports, paths and variables the code defines.
@Suite(.timeLimit(.minutes(2))) struct KubernetesTests {
    typealias Object = (file: String, object: YAMLValue)
    let objects: [Object]

    init() throws {
        objects = try Deploy.kubernetesObjects()
    }

    func objects(kind: String, includingExamples: Bool = false) -> [Object] {
        objects.filter { $0.object["kind"]?.text == kind && (includingExamples || !Deploy.isExample($0.file)) }
    }

    func name(_ object: YAMLValue) -> String { object["metadata", "name"]?.text ?? "?" }

    /// The pod spec of a workload (Deployment, Job).
    func podSpec(_ object: YAMLValue) -> YAMLValue? { object["spec", "template", "spec"] }

    func containers(_ object: YAMLValue) -> [YAMLValue] { podSpec(object)?["containers"]?.list ?? [] }

    /// The arguments a container runs with (the image's entrypoint is `reparto`).
    func arguments(_ container: YAMLValue) -> [String] {
        (container["command"]?.list ?? []).compactMap(\.text) + (container["args"]?.list ?? []).compactMap(\.text)
    }

    func deployment(role: String) throws -> YAMLValue {
        try #require(objects(kind: "Deployment").first { containers($0.object).contains { arguments($0).first == role } }?.object,
                     "a Deployment running `reparto \(role)`")
    }

    @Test func everyFileParsesAndEveryObjectHasTheBasics() throws {
        #expect(!Deploy.kubernetesFiles.isEmpty)
        for (file, object) in objects {
            let kind = try #require(object["kind"]?.text, "\(file): an object without kind")
            #expect(object["apiVersion"]?.text?.isEmpty == false, "\(file): \(kind) without apiVersion")
            if kind != "Kustomization" {
                #expect(object["metadata", "name"]?.text?.isEmpty == false, "\(file): \(kind) without metadata.name")
                if kind != "Namespace" {
                    #expect(object["metadata", "namespace"]?.text == "reparto", "\(file): \(kind) \(name(object)) is in namespace reparto")
                }
            }
        }
        let kinds = Set(objects.compactMap { $0.object["kind"]?.text })
        for required in ["Namespace", "ConfigMap", "Deployment", "Job", "PersistentVolumeClaim", "Service",
                         "PodDisruptionBudget", "ScaledObject", "TriggerAuthentication", "Kustomization"] {
            #expect(kinds.contains(required), "deploy/kubernetes has a \(required)")
        }
    }

    @Test func kustomizationListsEveryManifestButTheExamples() throws {
        let kustomization = try #require(objects(kind: "Kustomization").first)
        let listed = Set(kustomization.object["resources"]?.list.compactMap(\.text) ?? [])
        let directory = URL(fileURLWithPath: kustomization.file).deletingLastPathComponent().lastPathComponent
        let manifests = Set(Deploy.kubernetesFiles.map { URL(fileURLWithPath: $0).lastPathComponent }
            .filter { $0 != "kustomization.yaml" && !Deploy.isExample($0) })
        #expect(listed == manifests, "kustomization.yaml resources \(listed.sorted()) == manifests in \(directory) \(manifests.sorted())")
        #expect(listed.allSatisfy { !Deploy.isExample($0) }, "example Secrets are never applied")
    }

    @Test func workloadsAreCompleteAndSelectTheirOwnPods() throws {
        for (file, deployment) in objects(kind: "Deployment") {
            let selector = deployment["spec", "selector", "matchLabels"]?.stringMap ?? [:]
            let labels = deployment["spec", "template", "metadata", "labels"]?.stringMap ?? [:]
            #expect(!selector.isEmpty, "\(file): Deployment \(name(deployment)) has spec.selector.matchLabels")
            #expect(selector.allSatisfy { labels[$0.key] == $0.value },
                    "\(file): Deployment \(name(deployment)) selector \(selector) matches its template labels \(labels)")
        }
        for (file, workload) in objects(kind: "Deployment") + objects(kind: "Job") {
            let list = containers(workload)
            #expect(!list.isEmpty, "\(file): \(name(workload)) has containers")
            for container in list {
                #expect(container["name"]?.text?.isEmpty == false, "\(file): a container of \(name(workload)) has a name")
                #expect(container["image"]?.text?.isEmpty == false, "\(file): a container of \(name(workload)) has an image")
                #expect(!arguments(container).isEmpty, "\(file): a container of \(name(workload)) has command or args")
            }
            let security = podSpec(workload)?["securityContext"]
            #expect(security?["runAsNonRoot"] == .bool(true), "\(file): \(name(workload)) runs as non-root")
        }
        let job = try #require(objects(kind: "Job").first { containers($0.object).contains { arguments($0).first == "migrate" } },
                               "a Job running `reparto migrate`")
        let restart = podSpec(job.object)?["restartPolicy"]?.text
        #expect(restart == "OnFailure" || restart == "Never", "the migrate Job's restartPolicy is OnFailure or Never")
        for role in ["worker", "coordinator", "dashboard"] { _ = try deployment(role: role) }
        #expect(try deployment(role: "coordinator")["spec", "replicas"]?.int ?? 1 >= 2, "two coordinators: one leads, one waits")
    }

    @Test func assetVolumeIsReadWriteManyAndMountedByWorkers() throws {
        let claims = objects(kind: "PersistentVolumeClaim")
        let claim = try #require(claims.first)
        #expect(claim.object["spec", "accessModes"]?.list.compactMap(\.text).contains("ReadWriteMany") == true,
                "the asset claim is ReadWriteMany")
        #expect(claim.object["spec", "resources", "requests", "storage"]?.text != nil)
        let worker = try deployment(role: "worker")
        let volume = try #require(podSpec(worker)?["volumes"]?.list.first { $0["persistentVolumeClaim", "claimName"]?.text == name(claim.object) },
                                  "the worker mounts claim \(name(claim.object))")
        let assets = try #require(objects(kind: "ConfigMap").first?.object["data", "REPARTO_ASSETS"]?.text)
        let mounts = containers(worker).flatMap { $0["volumeMounts"]?.list ?? [] }
        #expect(mounts.contains { $0["name"] == volume["name"] && $0["mountPath"]?.text == assets },
                "the asset volume is mounted at REPARTO_ASSETS (\(assets))")
    }

    @Test func probesAndScrapingUseTheOperationsEndpoints() throws {
        for role in ["worker", "coordinator", "dashboard"] {
            let deployment = try deployment(role: role)
            let expectedPort = role == "dashboard" ? OperationsEndpoints.defaultDashboardPort : OperationsEndpoints.defaultMetricsPort
            for container in containers(deployment) {
                let ports = container["ports"]?.list ?? []
                func resolve(_ port: YAMLValue?) -> Int? {
                    if let number = port?.int { return number }
                    return ports.first { $0["name"] == port }?["containerPort"]?.int
                }
                for (probe, path) in [("livenessProbe", OperationsEndpoints.healthPath),
                                      ("readinessProbe", OperationsEndpoints.readyPath),
                                      ("startupProbe", OperationsEndpoints.healthPath)] {
                    // The dashboard's probes send its bearer token, which an httpGet probe cannot read from a file.
                    if role == "dashboard", let command = container[probe]?["exec", "command"]?.list.compactMap(\.text) {
                        let script = command.joined(separator: " ")
                        #expect(script.hasSuffix("http://127.0.0.1:\(expectedPort)\(path)"), "\(role): \(probe) requests \(path): \(script)")
                        #expect(script.contains("Authorization: Bearer") && script.contains("-H @-"), "\(role): \(probe) sends the token on stdin")
                        continue
                    }
                    guard let get = container[probe]?["httpGet"] else {
                        #expect(probe == "startupProbe", "\(role): \(probe) is an httpGet probe")
                        continue
                    }
                    #expect(get["path"]?.text == path, "\(role): \(probe) path \(get["path"]?.text ?? "-") == \(path)")
                    #expect(resolve(get["port"]) == expectedPort, "\(role): \(probe) port is \(expectedPort)")
                }
                if role == "dashboard" {
                    #expect(Deploy.flagValue("--port", in: arguments(container)) == String(OperationsEndpoints.defaultDashboardPort))
                    // Bound beyond loopback only with the token, mounted from the Secret.
                    let host = Deploy.flagValue("--host", in: arguments(container)) ?? "127.0.0.1"
                    let variables = (container["env"]?.list ?? []).compactMap { $0["name"]?.text }
                    #expect(host == "127.0.0.1" || variables.contains("REPARTO_DASHBOARD_TOKEN_FILE"), "dashboard bound to \(host) without a token")
                    #expect(!variables.contains("REPARTO_DASHBOARD_TOKEN"), "the token is a file, not a value")
                }
            }
            if role != "dashboard" {
                let annotations = deployment["spec", "template", "metadata", "annotations"]?.stringMap ?? [:]
                #expect(annotations["prometheus.io/port"] == String(OperationsEndpoints.defaultMetricsPort), "\(role): scrape port")
                #expect(annotations["prometheus.io/path"] == OperationsEndpoints.metricsPath, "\(role): scrape path")
            }
        }
        let config = try #require(objects(kind: "ConfigMap").first?.object)
        #expect(config["data", OperationsEndpoints.metricsPortVariable]?.text == String(OperationsEndpoints.defaultMetricsPort))
        #expect(config["data", OperationsEndpoints.logFormatVariable]?.text == "json")
    }

    @Test func servicesSelectPodsAndNamePortsTheyHave() throws {
        let templates = objects(kind: "Deployment").map { (labels: $0.object["spec", "template", "metadata", "labels"]?.stringMap ?? [:],
                                                           deployment: $0.object) }
        var selectsMetrics = false
        for (file, service) in objects(kind: "Service") {
            let selector = service["spec", "selector"]?.stringMap ?? [:]
            let selected = templates.filter { template in selector.allSatisfy { template.labels[$0.key] == $0.value } }
            #expect(!selector.isEmpty && !selected.isEmpty, "\(file): Service \(name(service)) selects some Deployment's pods")
            for port in service["spec", "ports"]?.list ?? [] {
                guard let target = port["targetPort"]?.text, Int(target) == nil else { continue }
                for (_, deployment) in selected {
                    let named = containers(deployment).flatMap { $0["ports"]?.list ?? [] }.contains { $0["name"]?.text == target }
                    #expect(named, "\(file): \(name(deployment)) has a port named \(target) for Service \(name(service))")
                }
            }
            let ports = service["spec", "ports"]?.list.compactMap { $0["port"]?.int } ?? []
            if ports.contains(OperationsEndpoints.defaultMetricsPort) {
                selectsMetrics = true
                let roles = Set(selected.flatMap { containers($0.deployment) }.compactMap { arguments($0).first })
                #expect(roles.isSuperset(of: ["worker", "coordinator"]), "the metrics Service covers workers and coordinators: \(roles)")
            }
        }
        #expect(selectsMetrics, "a Service exposes the metrics port for scraping")
    }

    @Test func workersDrainWithinTheirGracePeriodAndDisruptionsAreBudgeted() throws {
        let worker = try deployment(role: "worker")
        let container = try #require(containers(worker).first)
        let drain = try #require(Deploy.flagValue("--drain-timeout", in: arguments(container)).flatMap(Double.init),
                                 "the worker passes --drain-timeout explicitly")
        let grace = try #require(podSpec(worker)?["terminationGracePeriodSeconds"]?.int, "terminationGracePeriodSeconds is set")
        #expect(Double(grace) > drain, "terminationGracePeriodSeconds \(grace) > --drain-timeout \(drain)")

        let budget = try #require(objects(kind: "PodDisruptionBudget").first?.object)
        #expect(budget["apiVersion"]?.text == "policy/v1")
        #expect(budget["spec", "minAvailable"] != nil || budget["spec", "maxUnavailable"] != nil)
        let selector = budget["spec", "selector", "matchLabels"]?.stringMap ?? [:]
        let labels = worker["spec", "template", "metadata", "labels"]?.stringMap ?? [:]
        #expect(!selector.isEmpty && selector.allSatisfy { labels[$0.key] == $0.value }, "the PDB selects the worker pods")
    }

    @Test func kedaScalesTheWorkerDeploymentOnRepartoQueues() throws {
        let scaled = try #require(objects(kind: "ScaledObject").first?.object)
        #expect(scaled["apiVersion"]?.text == "keda.sh/v1alpha1")
        let worker = try deployment(role: "worker")
        #expect(scaled["spec", "scaleTargetRef", "name"]?.text == name(worker), "scaleTargetRef names the worker Deployment")
        #expect(worker["spec", "replicas"] == nil, "KEDA owns the worker replica count; the Deployment names none")
        let triggers = scaled["spec", "triggers"]?.list ?? []
        #expect(!triggers.isEmpty)
        let authentications = Set(objects(kind: "TriggerAuthentication").map { name($0.object) })
        let queues = Deploy.knownQueues
        // Workers consume every registered queue by default: a backlog on any of them must scale them.
        let triggered = Set(triggers.compactMap { $0["metadata", "queueName"]?.text })
        for queue in queues.sorted() {
            #expect(triggered.contains("reparto.q.\(queue)"), "a KEDA trigger for queue \(queue) (reparto.q.\(queue))")
        }
        for trigger in triggers {
            #expect(trigger["type"]?.text == "rabbitmq")
            let queue = trigger["metadata", "queueName"]?.text ?? ""
            #expect(queue.hasPrefix("reparto.q.") && queues.contains(String(queue.dropFirst("reparto.q.".count))),
                    "trigger queue \(queue) is reparto.q.<queue> of a registered queue \(queues.sorted())")
            #expect(trigger["metadata", "host"] == nil, "the broker URL comes from the TriggerAuthentication's Secret")
            let reference = trigger["authenticationRef", "name"]?.text ?? ""
            #expect(authentications.contains(reference), "authenticationRef \(reference) is a TriggerAuthentication")
        }
        #expect(objects(kind: "TriggerAuthentication").allSatisfy { !($0.object["spec", "secretTargetRef"]?.list.isEmpty ?? true) },
                "the TriggerAuthentication reads a Secret")
    }

    /// Secrets are referenced by name and key; the only place they are written is the example.
    @Test func referencedSecretsAndConfigMapsExist() throws {
        var examples: [String: Set<String>] = [:]
        for (_, secret) in objects(kind: "Secret", includingExamples: true) {
            examples[name(secret)] = Set((secret["stringData"]?.map ?? secret["data"]?.map ?? [:]).keys)
        }
        var configMaps: [String: Set<String>] = [:]
        for (_, config) in objects(kind: "ConfigMap") { configMaps[name(config)] = Set((config["data"]?.map ?? [:]).keys) }

        var secretReferences: [(name: String, key: String?)] = []
        for (file, object) in objects where !Deploy.isExample(file) {
            for value in object.descendants {
                if let secretName = value["secret", "secretName"]?.text { secretReferences.append((secretName, nil)) }
                if let ref = value["secretKeyRef"] { secretReferences.append((ref["name"]?.text ?? "", ref["key"]?.text)) }
                if let ref = value["secretRef"] { secretReferences.append((ref["name"]?.text ?? "", nil)) }
                if let targets = value["secretTargetRef"] {
                    for target in targets.list { secretReferences.append((target["name"]?.text ?? "", target["key"]?.text)) }
                }
                if let ref = value["configMapRef"] {
                    #expect(configMaps[ref["name"]?.text ?? ""] != nil, "\(file): ConfigMap \(ref["name"]?.text ?? "") exists")
                }
                if let ref = value["configMapKeyRef"] {
                    let keys = configMaps[ref["name"]?.text ?? ""]
                    #expect(keys?.contains(ref["key"]?.text ?? "") == true, "\(file): ConfigMap key \(ref["key"]?.text ?? "") exists")
                }
            }
        }
        #expect(!secretReferences.isEmpty)
        for reference in secretReferences {
            let keys = examples[reference.name]
            #expect(keys != nil, "Secret \(reference.name) is in secret.example.yaml")
            if let key = reference.key { #expect(keys?.contains(key) == true, "Secret \(reference.name) has key \(key) in the example") }
        }
        // Secret volumes: every file a *_FILE variable names is a key of the mounted Secret.
        for (file, workload) in objects(kind: "Deployment") + objects(kind: "Job") {
            let volumes = podSpec(workload)?["volumes"]?.list ?? []
            for container in containers(workload) {
                for variable in container["env"]?.list ?? [] {
                    guard let variableName = variable["name"]?.text, variableName.hasSuffix("_FILE"),
                          let path = variable["value"]?.text else { continue }
                    let mount = (container["volumeMounts"]?.list ?? []).first {
                        path.hasPrefix(($0["mountPath"]?.text ?? "//") + "/")
                    }
                    let secretName = volumes.first { $0["name"] == mount?["name"] }?["secret", "secretName"]?.text
                    let key = URL(fileURLWithPath: path).lastPathComponent
                    #expect(secretName.flatMap { examples[$0]?.contains(key) } == true,
                            "\(file): \(variableName)=\(path) is a key of a mounted Secret")
                }
            }
        }
    }
}
