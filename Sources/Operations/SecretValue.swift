import Foundation

/// A secret read from an environment variable or from the file another variable names
/// (`REPARTO_DATABASE_PASSWORD` or `REPARTO_DATABASE_PASSWORD_FILE`), as Docker and Kubernetes
/// secrets are mounted.
public enum SecretValue {
    /// Why a secret could not be read. The secret itself is never part of the message.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// Both the variable and its `_FILE` variant are set.
        case ambiguous(variable: String, fileVariable: String)
        /// The file named by the `_FILE` variable cannot be read.
        case unreadable(fileVariable: String, path: String, reason: String)

        /// One line for the CLI.
        public var description: String {
            switch self {
            case .ambiguous(let variable, let fileVariable):
                "both \(variable) and \(fileVariable) are set: set only one"
            case .unreadable(let fileVariable, let path, let reason):
                "cannot read \(fileVariable) (\(path)): \(reason)"
            }
        }
    }

    /// The secret from `variable`, or from the file `fileVariable` names (one trailing newline,
    /// `\n` or `\r\n`, removed), or nil when neither is set.
    /// - Parameter lookup: reads an environment variable (empty values count as unset).
    public static func resolve(variable: String, fileVariable: String,
                               lookup: (String) -> String?) throws(Failure) -> String? {
        let direct = lookup(variable).flatMap { $0.isEmpty ? nil : $0 }
        let path = lookup(fileVariable).flatMap { $0.isEmpty ? nil : $0 }
        switch (direct, path) {
        case (nil, nil): return nil
        case (let value?, nil): return value
        case (_?, _?): throw .ambiguous(variable: variable, fileVariable: fileVariable)
        case (nil, let path?): return try read(path, fileVariable: fileVariable)
        }
    }

    /// The file's contents without one trailing newline.
    public static func read(_ path: String, fileVariable: String) throws(Failure) -> String {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(fileVariable: fileVariable, path: path, reason: (error as NSError).localizedDescription)
        }
        guard var text = String(data: data, encoding: .utf8) else {
            throw .unreadable(fileVariable: fileVariable, path: path, reason: "not UTF-8 text")
        }
        // By scalars: "\r\n" is a single Character.
        if text.unicodeScalars.last == "\n" {
            text.unicodeScalars.removeLast()
            if text.unicodeScalars.last == "\r" { text.unicodeScalars.removeLast() }
        }
        return text
    }
}
