import Foundation

/// Reparto's configuration as one merged view, with one precedence rule:
/// **a command-line flag, else the process environment, else the env file** (`--env-file FILE`,
/// else `.reparto/env` in the working directory when it exists). An empty value counts as unset.
///
/// Programs Reparto runs and the SQL it applies come only from a flag or the process environment,
/// never from an env file (``processOnlyVariables``): a `.reparto/env` found in a directory cannot
/// name the executable or the migrations a command then runs.
///
/// Secrets follow one rule too, see ``secret(_:)``. Every component that reads configuration
/// reads it from here (or from ``variables``, the same view as a dictionary), so a value written
/// in the env file reaches it exactly as one exported in the environment would.
///
/// ```swift
/// let configuration = try ConfigurationValues.load(flags: ["REPARTO_NAMESPACE": namespace], envFile: envFilePath)
/// let key = try configuration.secret("OPENAI_API_KEY")   // OPENAI_API_KEY or OPENAI_API_KEY_FILE
/// ```
public struct ConfigurationValues: Sendable {
    /// Where a value came from, highest precedence first.
    public enum Layer: String, Sendable, CaseIterable {
        /// A command-line flag (never a secret: secrets do not go in argv).
        case flag
        /// The process environment.
        case environment
        /// The env file.
        case envFile
    }

    /// Variables an env file never sets: executable paths (`ESPEAK_NG_PATH`, `REPARTO_FFMPEG`,
    /// `REPARTO_PIPER_PYTHON`, and `PATH`, which the executables are looked up on) and the
    /// migrations directory.
    public static let processOnlyVariables: Set<String> = ["ESPEAK_NG_PATH", "REPARTO_FFMPEG", "REPARTO_PIPER_PYTHON", "REPARTO_MIGRATIONS", "PATH"]

    private let flags: [String: String]
    private let environment: [String: String]
    /// The env file read, if any.
    public let envFile: EnvFile?

    /// A view over the given layers.
    /// - Parameters:
    ///   - flags: values given by flags, keyed by the variable they stand for (nil: not given).
    ///   - environment: the process environment.
    ///   - envFile: the env file, if any.
    public init(flags: [String: String?] = [:],
                environment: [String: String] = ProcessInfo.processInfo.environment,
                envFile: EnvFile? = nil) {
        self.flags = flags.compactMapValues { $0 }.filter { !$0.value.isEmpty }
        self.environment = environment.filter { !$0.value.isEmpty }
        self.envFile = envFile
    }

    /// The view `reparto` commands use: `flags`, the process environment and the env file that
    /// ``EnvFile/locate(explicitPath:directory:)`` finds.
    /// - Parameters:
    ///   - envFile: the path `--env-file` gave (it must be readable).
    ///   - directory: where `.reparto/env` is looked for (nil: the working directory).
    /// - Throws: ``ConfigurationError/unreadableEnvFile(path:reason:)``.
    public static func load(flags: [String: String?] = [:],
                            environment: [String: String] = ProcessInfo.processInfo.environment,
                            envFile: String? = nil, directory: String? = nil) throws(ConfigurationError) -> ConfigurationValues {
        ConfigurationValues(flags: flags, environment: environment,
                            envFile: try EnvFile.locate(explicitPath: envFile, directory: directory))
    }

    /// The value of `name` by the precedence rule, or nil when no layer sets it.
    public subscript(name: String) -> String? {
        guard let layer = layer(of: name) else { return nil }
        return value(of: name, in: layer)
    }

    /// The layer `name`'s value comes from, or nil when it is not set.
    public func layer(of name: String) -> Layer? {
        Layer.allCases.first { value(of: name, in: $0) != nil }
    }

    /// Every variable by the precedence rule, for components configured from a dictionary
    /// (the speech providers, the pipeline's kinds). It contains secrets: pass it on, never print it.
    public var variables: [String: String] {
        var merged = (envFile?.values ?? [:]).filter { !$0.value.isEmpty && !Self.processOnlyVariables.contains($0.key) }
        merged.merge(environment) { _, new in new }
        merged.merge(flags) { _, new in new }
        return merged
    }

    /// The secret `name`, by the one secret rule: its value is `name`'s, or the contents of the file
    /// `name_FILE` names with one trailing newline (`\n` or `\r\n`) removed — as Docker and
    /// Kubernetes mount secrets. Nil when neither is set.
    /// - Throws: ``ConfigurationError/ambiguousSecret(variable:fileVariable:)`` when both are set
    ///   (whichever layers they come from), ``ConfigurationError/unreadableSecretFile(fileVariable:path:reason:)``
    ///   when the file cannot be read, ``ConfigurationError/emptySecretFile(fileVariable:path:)`` when it is empty.
    public func secret(_ name: String) throws(ConfigurationError) -> Secret? {
        let fileVariable = name + "_FILE"
        switch (self[name], self[fileVariable]) {
        case (nil, nil): return nil
        case (let value?, nil): return Secret(value)
        case (_?, _?): throw .ambiguousSecret(variable: name, fileVariable: fileVariable)
        case (nil, let path?): return try Self.readSecret(path, fileVariable: fileVariable)
        }
    }

    /// ``secret(_:)`` for components that report a problem instead of failing (a provider that is
    /// then "not configured" and says why): the secret, or the reason it cannot be read.
    public func secretOrProblem(_ name: String) -> (secret: Secret?, problem: ConfigurationError?) {
        do { return (try secret(name), nil) } catch { return (nil, error) }
    }

    /// The contents of a secret file without one trailing newline.
    static func readSecret(_ path: String, fileVariable: String) throws(ConfigurationError) -> Secret {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadableSecretFile(fileVariable: fileVariable, path: path, reason: EnvFile.reason(error))
        }
        guard var text = String(data: data, encoding: .utf8) else {
            throw .unreadableSecretFile(fileVariable: fileVariable, path: path, reason: "not UTF-8 text")
        }
        // By scalars: "\r\n" is a single Character.
        if text.unicodeScalars.last == "\n" {
            text.unicodeScalars.removeLast()
            if text.unicodeScalars.last == "\r" { text.unicodeScalars.removeLast() }
        }
        guard !text.isEmpty else { throw .emptySecretFile(fileVariable: fileVariable, path: path) }
        return Secret(text)
    }

    /// Refuses a URL given by `flag` that carries a password: passwords never go on the command line.
    /// - Parameter passwordVariable: where the password belongs instead (named in the error).
    /// - Throws: ``ConfigurationError/passwordInFlag(flag:passwordVariable:)``.
    public static func refusePassword(inURL url: String?, flag: String, passwordVariable: String) throws(ConfigurationError) {
        if let url, let components = URLComponents(string: url), components.password != nil {
            throw .passwordInFlag(flag: flag, passwordVariable: passwordVariable)
        }
    }

    private func value(of name: String, in layer: Layer) -> String? {
        switch layer {
        case .flag: flags[name]
        case .environment: environment[name]
        case .envFile: Self.processOnlyVariables.contains(name) ? nil : envFile?.values[name].flatMap { $0.isEmpty ? nil : $0 }
        }
    }
}
