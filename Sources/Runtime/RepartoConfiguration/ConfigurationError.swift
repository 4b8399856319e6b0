/// Why configuration could not be read: one line each, naming variables and paths, never a secret.
public enum ConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Both a variable and its `_FILE` form are set (in any layer): set only one.
    case ambiguousSecret(variable: String, fileVariable: String)
    /// The file a `_FILE` variable names cannot be read (missing, unreadable, not UTF-8).
    case unreadableSecretFile(fileVariable: String, path: String, reason: String)
    /// The file a `_FILE` variable names is empty (after its trailing newline).
    case emptySecretFile(fileVariable: String, path: String)
    /// The env file named by `--env-file` cannot be read.
    case unreadableEnvFile(path: String, reason: String)
    /// `.reparto/env` in the working directory is not the current user's own, or others may write it.
    case unsafeEnvFile(path: String, reason: String)
    /// A URL given on the command line carries a password (passwords never go in argv).
    case passwordInFlag(flag: String, passwordVariable: String)
    /// A URL variable holds something that is not such a URL; `reason` says what is wrong without
    /// repeating the value (it may carry a password).
    case malformedURL(variable: String, reason: String)

    /// One line for the CLI.
    public var description: String {
        switch self {
        case .ambiguousSecret(let variable, let fileVariable):
            "both \(variable) and \(fileVariable) are set: set only one"
        case .unreadableSecretFile(let fileVariable, let path, let reason):
            "cannot read \(fileVariable) (\(path)): \(reason)"
        case .emptySecretFile(let fileVariable, let path):
            "\(fileVariable) names an empty file (\(path))"
        case .unreadableEnvFile(let path, let reason):
            "cannot read the env file \(path): \(reason)"
        case .unsafeEnvFile(let path, let reason):
            "not reading the env file \(path): \(reason)"
        case .passwordInFlag(let flag, let passwordVariable):
            "\(flag) must not contain a password: set it in \(passwordVariable) (or \(passwordVariable)_FILE) or the env file"
        case .malformedURL(let variable, let reason):
            "\(variable) is malformed: \(reason)"
        }
    }
}
