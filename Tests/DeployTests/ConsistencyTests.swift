import Foundation
import Operations
import Testing

/// Checks across every file of deploy/: variables, images, secrets.
@Suite(.timeLimit(.minutes(2))) struct ConsistencyTests {
    /// Every deploy/ file as text (the local secrets/ directory excluded).
    static func deployFiles() throws -> [(path: String, text: String)] {
        try Deploy.files(under: "deploy").map { ($0, try Deploy.text($0)) }
    }

    @Test func everyRepartoVariableNamedInDeployIsOneTheCodeReads() throws {
        var names: [String: Set<String>] = [:]
        for (path, text) in try Self.deployFiles() {
            for name in Deploy.matches(#"\b(REPARTO_[A-Z0-9_]*[A-Z0-9])\b"#, in: text) { names[name, default: []].insert(path) }
        }
        #expect(names["REPARTO_DATABASE_PASSWORD_FILE"] != nil && names["REPARTO_AMQP_PASSWORD_FILE"] != nil)
        for (name, paths) in names.sorted(by: { $0.key < $1.key }) {
            #expect(Deploy.codeReads(variable: name),
                    "\(name) (in \(paths.sorted().joined(separator: ", "))) is not read anywhere in Sources/")
        }
    }

    @Test func imagesAgreeAcrossComposeAndKubernetes() throws {
        var images: [String: Set<String>] = [:]
        let compose = try #require(try Deploy.yamlDocuments("deploy/compose.yaml").first)
        for (name, service) in compose["services"]?.map ?? [:] where service["build"] != nil {
            images[service["image"]?.text ?? "(none)", default: []].insert("compose \(name)")
        }
        for (file, object) in try Deploy.kubernetesObjects() {
            for value in object.descendants {
                guard let containers = value["containers"]?.list else { continue }
                for container in containers {
                    images[container["image"]?.text ?? "(none)", default: []].insert(file)
                }
            }
        }
        #expect(images.count == 1, "one Reparto image everywhere: \(images)")
        let image = try #require(images.keys.first)
        #expect(image.contains(":") && !image.hasSuffix(":latest"), "a pinned tag: \(image)")
        let kustomization = try #require(try Deploy.kubernetesObjects().first { $0.object["kind"]?.text == "Kustomization" }?.object)
        for entry in kustomization["images"]?.list ?? [] {
            let name = entry["name"]?.text ?? ""
            let tag = entry["newTag"]?.text ?? ""
            #expect("\(entry["newName"]?.text ?? name):\(tag)" == image, "kustomization images agree with \(image)")
        }
    }

    /// No password, token or key appears in a manifest: only file paths, Secret references and
    /// placeholders in the example files.
    @Test func noSecretValueIsInlined() throws {
        let credentialsInURL = #"[a-z][a-z0-9+.-]*://[^\s/@:'"]+:[^\s/@'"]+@"#
        for (path, text) in try Self.deployFiles() where !Deploy.isExample(path) && !path.hasSuffix(".md") {
            #expect(Deploy.matches(credentialsInURL, in: text).isEmpty, "\(path) has a URL with a password")
        }
        for (file, object) in try Deploy.kubernetesObjects() {
            if object["kind"]?.text == "Secret" {
                #expect(Deploy.isExample(file), "\(file): a Secret outside the example file")
                for (key, value) in (object["stringData"]?.map ?? [:]).merging(object["data"]?.map ?? [:], uniquingKeysWith: { a, _ in a }) {
                    #expect(value.text?.contains("CHANGE-ME") == true, "\(file): \(key) is a placeholder")
                }
            }
            for value in object.descendants {
                guard let name = value["name"]?.text, value["value"] != nil else { continue }
                let upper = name.uppercased()
                if upper.contains("PASSWORD") || upper.contains("SECRET") || upper.contains("TOKEN") || upper.hasSuffix("API_KEY") {
                    #expect(upper.hasSuffix("_FILE"), "\(file): \(name) has an inline value")
                }
            }
            if object["kind"]?.text == "ConfigMap" {
                for key in (object["data"]?.map ?? [:]).keys {
                    #expect(!key.uppercased().contains("PASSWORD"), "\(file): ConfigMap key \(key) holds no password")
                }
            }
        }
        let environment = try Deploy.text("deploy/systemd/env.example")
        #expect(!environment.split(separator: "\n").contains { $0.hasPrefix("REPARTO_") && $0.contains("PASSWORD=") })
    }

    @Test func readmeCoversTheOperatorsPath() throws {
        let readme = try Deploy.text("deploy/README.md")
        for topic in ["compose", "systemd", "Kubernetes", "KEDA", "ReadWriteMany", "LoadCredential", "quorum",
                      "REPARTO_NAMESPACE", "max_connections", "--drain-timeout", "reparto migrate", "advisory lock",
                      OperationsEndpoints.healthPath, OperationsEndpoints.readyPath, OperationsEndpoints.metricsPath] {
            #expect(readme.contains(topic), "deploy/README.md covers \(topic)")
        }
    }
}
