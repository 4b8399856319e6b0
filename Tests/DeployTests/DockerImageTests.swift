import Foundation
import Glibc
import Operations
import Testing

/// deploy/docker/Dockerfile: one image for every role, and a runtime stage that has every
/// shared library the built `reparto` binary links.
@Suite(.timeLimit(.minutes(2))) struct DockerImageTests {
    let dockerfile: Dockerfile

    init() throws {
        dockerfile = Dockerfile(try Deploy.text("deploy/docker/Dockerfile"))
    }

    @Test func multiStageBuildOfOneImageForEveryRole() throws {
        #expect(dockerfile.stages.count >= 2, "a build stage and a runtime stage")
        let build = try #require(dockerfile.stage(named: "build"), "a stage named build")
        #expect(build.image.hasPrefix("swift:6"), "build image \(build.image) is a Swift 6 image")
        let runtime = try #require(dockerfile.runtime)
        #expect(runtime.image == "debian:bookworm-slim", "runtime image \(runtime.image)")
        // A release build of the reparto product: directly, or through scripts/build-release (the
        // build stage must then copy the script in).
        let script = try Deploy.text("scripts/build-release")
        let viaScript = build.all("RUN").contains { $0.contains("scripts/build-release") }
            && build.all("COPY").contains { $0.contains("scripts/build-release") }
            && script.contains("swift build") && script.contains("-c release") && script.contains("--product reparto")
        #expect(viaScript || build.all("RUN").contains { $0.contains("swift build -c release") && $0.contains("--product reparto") })

        let entrypoint = try #require(runtime.all("ENTRYPOINT").last.flatMap(Dockerfile.execForm))
        #expect(entrypoint == ["/usr/local/bin/reparto"], "entrypoint is the reparto binary (exec form): \(entrypoint)")
        #expect(build.all("RUN").contains { $0.contains("/staging/usr/local/bin/reparto") })
        #expect(runtime.copies(from: "build").contains { $0.sources == ["/staging/"] && $0.destination == "/" })
        #expect(runtime.all("STOPSIGNAL").last == "SIGTERM")
    }

    @Test func runsAsNonRoot() throws {
        let runtime = try #require(dockerfile.runtime)
        let user = try #require(runtime.all("USER").last, "the runtime stage sets USER")
        let name = user.split(separator: ":").first.map(String.init) ?? user
        #expect(name != "root" && name != "0", "USER \(user) is not root")
    }

    @Test func migrationsAreInTheImageWhereREPARTO_MIGRATIONSPoints() throws {
        let runtime = try #require(dockerfile.runtime)
        let build = try #require(dockerfile.stage(named: "build"))
        let migrations = try #require(runtime.environment["REPARTO_MIGRATIONS"], "ENV REPARTO_MIGRATIONS")
        #expect(build.all("COPY").contains { $0.hasPrefix("migrations ") }, "the build stage copies migrations/")
        #expect(build.all("RUN").contains { $0.contains("/staging" + migrations) },
                "the migrations are staged at \(migrations)")
        // The same path Migrator.defaultDirectory finds beside /usr/local/bin/reparto without the variable.
        #expect(migrations == "/usr/local/share/reparto/migrations")
        #expect(Deploy.codeReads(variable: "REPARTO_MIGRATIONS"))
    }

    @Test func assetsAreAVolumeAndTheOperationsPortsAreExposed() throws {
        let runtime = try #require(dockerfile.runtime)
        let assets = try #require(runtime.environment["REPARTO_ASSETS"], "ENV REPARTO_ASSETS")
        #expect(runtime.all("VOLUME").contains { $0.contains("\"\(assets)\"") }, "VOLUME [\"\(assets)\"]")
        #expect(runtime.environment[OperationsEndpoints.metricsPortVariable] == String(OperationsEndpoints.defaultMetricsPort))
        let exposed = runtime.all("EXPOSE").flatMap { $0.split(separator: " ").map(String.init) }
        #expect(exposed.contains(String(OperationsEndpoints.defaultMetricsPort)))
        #expect(exposed.contains(String(OperationsEndpoints.defaultDashboardPort)))
    }

    @Test func dockerignoreKeepsBuildOutputAndLocalStateOut() throws {
        let patterns = Set(try Deploy.text(".dockerignore").split(separator: "\n").map(String.init))
        for required in [".build", ".build-*", ".build_*", ".reparto", ".git", ".swiftpm"] {
            #expect(patterns.contains(required), ".dockerignore excludes \(required)")
        }
        // The build stage copies these; excluding them would break the build.
        for needed in ["Sources", "Tests", "migrations", "Package.swift"] {
            #expect(!patterns.contains(needed), ".dockerignore must not exclude \(needed)")
        }
    }

    /// The runtime stage installs (or copies from the build stage) every library `ldd` lists for
    /// the `reparto` binary this build produced: each resolved `.so` is mapped to its Debian package
    /// with `dpkg -S`, which must be installed explicitly, be part of every Debian base image
    /// (Essential or Priority required), or be a dependency of one of those; libraries no package
    /// owns must be Swift runtime libraries, which the build stage links in (scripts/build-release
    /// with `--static-swift-stdlib`) or the runtime stage copies from the toolchain.
    @Test func runtimePackagesCoverEveryLibraryTheBinaryLinks() throws {
        let runtime = try #require(dockerfile.runtime)
        let binary = try RepartoBinary.locate()

        // The mapping uses this machine's package database: it must be the runtime image's release.
        let codename = Deploy.matches(#"(?m)^VERSION_CODENAME=(\S+)$"#, in: try String(contentsOfFile: "/etc/os-release", encoding: .utf8)).first
        let runtimeCodename = runtime.image.split(separator: ":").last.map { String($0.split(separator: "-").first ?? "") }
        #expect(codename != nil && codename == runtimeCodename,
                "this machine runs \(codename ?? "?"), the runtime image is \(runtime.image): the package mapping would be meaningless")

        var libraries = try SharedLibraries.of(binary)
        #expect(!libraries.isEmpty, "ldd listed no libraries for \(binary.path)")
        // Loaded with dlopen when the first synthesis needs it (Speech/EspeakSymbols.swift), so
        // ldd does not list it; its own dependencies come with its package.
        #expect(Deploy.sourcesContain("static let library = \"\(RuntimeLoaded.espeak)\""))
        libraries.append(try RuntimeLoaded.locate(RuntimeLoaded.espeak))
        let owners = try Packages.owners(of: libraries.map(\.path))
        let database = try Packages.installedDatabase()
        let explicit = Set(runtime.installedPackages)
        #expect(!explicit.isEmpty, "the runtime stage installs packages with apt-get install")
        let available = database.closure(of: explicit.union(database.baseImagePackages))
        let swiftCopies = runtime.copies(from: "build")
        let buildScript = try Deploy.text("scripts/build-release")
        let linksRuntimeIn = dockerfile.stages.contains { stage in stage.all("RUN").contains { $0.contains("scripts/build-release") } }
            && buildScript.contains("--static-swift-stdlib")

        for library in libraries {
            if let packages = owners[library.path] {
                #expect(packages.contains { available.contains($0) },
                        "\(library.name) (\(library.path)) is in package \(packages.sorted().joined(separator: ", ")), which the runtime stage does not install")
            } else {
                let directory = URL(fileURLWithPath: library.path).deletingLastPathComponent().path
                let swiftRuntime = directory.hasSuffix("/lib/swift/linux")
                let copied = swiftRuntime && (linksRuntimeIn || swiftCopies.contains { copy in
                    copy.sources.contains { source in
                        source.hasPrefix("/usr/lib/swift/linux/")
                            && fnmatch(String(source.dropFirst("/usr/lib/swift/linux/".count)), library.name, 0) == 0
                    } && copy.destination.hasPrefix("/usr/lib/swift/linux")
                })
                #expect(copied, "\(library.name) (\(library.path)) belongs to no Debian package and is not a Swift runtime library the build links in or the runtime stage copies")
            }
        }
        // A copied Swift runtime must be found at run time.
        if !linksRuntimeIn {
            #expect(runtime.all("RUN").contains { $0.contains("/usr/lib/swift/linux") && $0.contains("ldconfig") })
        }
    }
}

/// What a process loads at start-up: libespeak-ng (and the 29 libraries of the audio stack it
/// links) only when something speaks.
@Suite(.timeLimit(.minutes(1))) struct RuntimeLoadingTests {
    @Test func theBinaryDoesNotLinkTheSpeechEngine() throws {
        let libraries = try SharedLibraries.of(try RepartoBinary.locate())
        #expect(!libraries.contains { $0.name.hasPrefix("libespeak-ng") || $0.name.hasPrefix("libpcaudio") || $0.name.hasPrefix("libpulse") },
                """
                linked: \(libraries.map(\.name).filter { $0.hasPrefix("libespeak") || $0.hasPrefix("libpcaudio") || $0.hasPrefix("libpulse") }) \
                (a build directory from before CEspeakNG stopped linking keeps the old link in objects \
                SwiftPM does not rebuild: remove .build)
                """)
    }
}

/// Libraries the binary loads with `dlopen` rather than links.
enum RuntimeLoaded {
    static let espeak = "libespeak-ng.so.1"

    /// Where the dynamic loader would find `soname` (Debian's multiarch directories).
    static func locate(_ soname: String) throws -> SharedLibraries.Library {
        for directory in ["/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib"] {
            let path = directory + "/" + soname
            if FileManager.default.fileExists(atPath: path) { return SharedLibraries.Library(name: soname, path: path) }
        }
        throw DeployTestError("\(soname), which reparto loads at run time, is not installed here")
    }
}

/// The `reparto` executable of this build.
enum RepartoBinary {
    /// `$REPARTO_BINARY`, else the `reparto` beside this test bundle (same scratch path and
    /// configuration). Missing is a failure (CI=true or not): `swift build --build-tests` builds it.
    static func locate() throws -> URL {
        let environment = ProcessInfo.processInfo.environment
        var candidates: [URL] = []
        if let path = environment["REPARTO_BINARY"], !path.isEmpty {
            candidates.append(URL(fileURLWithPath: path))
        } else {
            let bundle = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
            candidates.append(bundle.deletingLastPathComponent().appendingPathComponent("reparto"))
            if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
                candidates.append(executable.deletingLastPathComponent().appendingPathComponent("reparto"))
            }
        }
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) {
            return found
        }
        let ci = environment["CI"] == "true" ? " (CI=true: this is a failure, not a skip)" : ""
        throw DeployTestError("the reparto binary was not found at \(candidates.map(\.path).joined(separator: " or "))\(ci); build it with `swift build --build-tests` or set REPARTO_BINARY")
    }
}

/// The libraries `ldd` resolves for a binary.
enum SharedLibraries {
    struct Library: Hashable {
        var name: String
        var path: String
    }

    static func of(_ binary: URL) throws -> [Library] {
        let output = try Command.run("/usr/bin/ldd", [binary.path])
        guard output.status == 0 else {
            throw DeployTestError("ldd \(binary.path) failed: \(output.standardError)")
        }
        var libraries: [Library] = []
        for line in output.standardOutput.split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.contains("not found") {
                throw DeployTestError("ldd: \(text): the binary does not even run here")
            }
            if let arrow = text.range(of: " => ") {
                let name = String(text[..<arrow.lowerBound])
                let target = text[arrow.upperBound...].split(separator: " ").first.map(String.init) ?? ""
                if target.hasPrefix("/") { libraries.append(Library(name: name, path: target)) }
            } else if text.hasPrefix("/") {
                // The dynamic loader: `/lib64/ld-linux-x86-64.so.2 (0x…)`.
                let path = String(text.split(separator: " ").first ?? "")
                libraries.append(Library(name: URL(fileURLWithPath: path).lastPathComponent, path: path))
            }
            // linux-vdso.so.1 is provided by the kernel.
        }
        return libraries
    }
}

/// The Debian package database of this machine.
enum Packages {
    /// path → packages owning it. Tries the path as ldd printed it, its real path, and both with
    /// and without the /usr prefix (merged-/usr systems register either).
    static func owners(of paths: [String]) throws -> [String: Set<String>] {
        var candidates: [String: [String]] = [:]
        for path in paths {
            let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
            var list: [String] = []
            for variant in [path, real] {
                list.append(variant)
                list.append(variant.hasPrefix("/usr/") ? String(variant.dropFirst(4)) : "/usr" + variant)
            }
            candidates[path] = list
        }
        let all = Array(Set(candidates.values.joined())).sorted()
        // Exit status 1 only says some candidate has no owner, which is expected.
        let output = try Command.run("/usr/bin/dpkg-query", ["-S"] + all)
        var ownersByCandidate: [String: Set<String>] = [:]
        for line in output.standardOutput.split(separator: "\n") where !line.hasPrefix("diversion") {
            guard let separator = line.range(of: ": /") else { continue }
            let path = String(line[line.index(before: separator.upperBound)...])
            let packages = line[..<separator.lowerBound].split(separator: ",").map {
                String($0.trimmingCharacters(in: .whitespaces).split(separator: ":").first ?? "")
            }
            ownersByCandidate[path, default: []].formUnion(packages)
        }
        var result: [String: Set<String>] = [:]
        for (path, list) in candidates {
            let owners = list.reduce(into: Set<String>()) { $0.formUnion(ownersByCandidate[$1] ?? []) }
            if !owners.isEmpty { result[path] = owners }
        }
        return result
    }

    struct Database {
        struct Entry {
            var priority: String
            var essential: Bool
            /// Each dependency as its alternatives, in order.
            var depends: [[String]]
        }

        var entries: [String: Entry] = [:]
        /// Virtual package → installed packages providing it.
        var providers: [String: [String]] = [:]

        /// What `debian:*-slim` holds: the Essential and Priority required packages (debootstrap minbase).
        var baseImagePackages: Set<String> {
            Set(entries.filter { $0.value.essential || $0.value.priority == "required" }.keys)
        }

        /// `roots` and everything they depend on (the first alternative installed here).
        func closure(of roots: Set<String>) -> Set<String> {
            var seen: Set<String> = []
            var queue = Array(roots)
            while let name = queue.popLast() {
                let resolved = entries[name] != nil ? [name] : (providers[name] ?? [])
                for package in resolved where seen.insert(package).inserted {
                    for alternatives in entries[package]?.depends ?? [] {
                        if let first = alternatives.first(where: { entries[$0] != nil || providers[$0] != nil }) {
                            queue.append(first)
                        }
                    }
                }
                if resolved.isEmpty { seen.insert(name) }
            }
            return seen
        }
    }

    static func installedDatabase() throws -> Database {
        let format = "${Package}\t${db:Status-Abbrev}\t${Priority}\t${Essential}\t${Pre-Depends}\t${Depends}\t${Provides}\n"
        let output = try Command.run("/usr/bin/dpkg-query", ["-W", "-f", format])
        guard output.status == 0 else { throw DeployTestError("dpkg-query -W failed: \(output.standardError)") }
        var database = Database()
        for line in output.standardOutput.split(separator: "\n", omittingEmptySubsequences: true) {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 7, fields[1].hasPrefix("ii") else { continue }
            let depends = (fields[4] + "," + fields[5]).split(separator: ",").compactMap { dependency -> [String]? in
                let alternatives = dependency.split(separator: "|").map(packageName).filter { !$0.isEmpty }
                return alternatives.isEmpty ? nil : alternatives
            }
            database.entries[fields[0]] = Database.Entry(priority: fields[2], essential: fields[3] == "yes", depends: depends)
            for provided in fields[6].split(separator: ",").map(packageName) where !provided.isEmpty {
                database.providers[provided, default: []].append(fields[0])
            }
        }
        return database
    }

    /// `libfoo1:any (>= 1.2)` → `libfoo1`.
    private static func packageName(_ text: Substring) -> String {
        let name = text.trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? ""
        return String(name.split(separator: ":").first ?? "")
    }
}
