import Foundation
import RepartoTestSupport
import Yams

/// A test precondition that does not hold: reported as a failure, never as a skip.
struct DeployTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A parsed YAML value, reduced to what manifests use.
enum YAMLValue: Sendable, Equatable {
    case map([String: YAMLValue])
    case list([YAMLValue])
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null

    init(_ any: Any?) {
        switch any {
        case nil: self = .null
        case let value as [AnyHashable: Any]:
            var map: [String: YAMLValue] = [:]
            for (key, item) in value { map[String(describing: key.base)] = YAMLValue(item) }
            self = .map(map)
        case let value as [Any]: self = .list(value.map { YAMLValue($0) })
        case let value as String: self = .string(value)
        case let value as Bool: self = .bool(value)
        case let value as Int: self = .int(value)
        case let value as Double: self = .double(value)
        case is NSNull: self = .null
        case let value?: self = .string(String(describing: value))
        }
    }

    subscript(key: String) -> YAMLValue? {
        if case .map(let map) = self { return map[key] }
        return nil
    }

    /// The value at a path of keys (`value["spec", "template", "spec"]`).
    subscript(path: String...) -> YAMLValue? {
        var current: YAMLValue? = self
        for key in path { current = current?[key] }
        return current
    }

    var map: [String: YAMLValue]? { if case .map(let map) = self { return map } else { return nil } }
    var list: [YAMLValue] { if case .list(let list) = self { return list } else { return [] } }

    /// The scalar as text (`9464` and `"9464"` alike), nil for maps, lists and null.
    var text: String? {
        switch self {
        case .string(let value): value
        case .int(let value): String(value)
        case .double(let value): String(value)
        case .bool(let value): String(value)
        default: nil
        }
    }

    var int: Int? {
        switch self {
        case .int(let value): value
        case .string(let value): Int(value)
        default: nil
        }
    }

    /// The map's string-valued entries (labels, annotations, selectors).
    var stringMap: [String: String] {
        (map ?? [:]).compactMapValues(\.text)
    }

    /// Every value below this one, depth first (for "is X referenced anywhere" questions).
    var descendants: [YAMLValue] {
        switch self {
        case .map(let map): [self] + map.keys.sorted().flatMap { map[$0]!.descendants }
        case .list(let list): [self] + list.flatMap(\.descendants)
        default: [self]
        }
    }
}

/// The files under deploy/ and the sources they are checked against.
enum Deploy {
    static let root = TestEnvironment.repositoryRoot
    static let directory = root.appendingPathComponent("deploy")

    static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    static func text(_ relative: String) throws -> String {
        do {
            return try String(contentsOf: url(relative), encoding: .utf8)
        } catch {
            throw DeployTestError("cannot read \(relative): \(error)")
        }
    }

    /// Relative paths (from the repository root) of the files below `relative`, sorted.
    static func files(under relative: String) -> [String] {
        let base = url(relative).standardizedFileURL.path
        guard let enumerator = FileManager.default.enumerator(atPath: base) else { return [] }
        var paths: [String] = []
        while let item = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: base + "/" + item, isDirectory: &isDirectory), !isDirectory.boolValue {
                // Local secret files of the compose deployment are git-ignored; never read them.
                if item.hasPrefix("secrets/") { continue }
                paths.append(relative + "/" + item)
            }
        }
        return paths.sorted()
    }

    /// Every YAML document in a file; a syntax error anywhere is thrown.
    static func yamlDocuments(_ relative: String) throws -> [YAMLValue] {
        let parser = try Parser(yaml: try text(relative))
        var documents: [YAMLValue] = []
        while let node = try parser.nextRoot() {
            let value = YAMLValue(node.any)
            if value != .null { documents.append(value) }
        }
        return documents
    }

    static var kubernetesFiles: [String] {
        files(under: "deploy/kubernetes").filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }
    }

    static func isExample(_ relative: String) -> Bool {
        relative.contains(".example.")
    }

    /// Each Kubernetes object with the file it is in.
    static func kubernetesObjects() throws -> [(file: String, object: YAMLValue)] {
        try kubernetesFiles.flatMap { file in try yamlDocuments(file).map { (file, $0) } }
    }

    /// The Swift sources, path → text (the working tree, so deploy/ is checked against the code as it is).
    static let sources: [String: String] = {
        var result: [String: String] = [:]
        for path in files(under: "Sources") where path.hasSuffix(".swift") {
            result[path] = try? String(contentsOf: url(path), encoding: .utf8)
        }
        return result
    }()

    /// Whether some source file contains `needle`.
    static func sourcesContain(_ needle: String) -> Bool {
        sources.values.contains { $0.contains(needle) }
    }

    /// Whether the code reads environment variable `name`: its name is a string literal in Sources,
    /// or it is `BASE_FILE` and a file naming `"BASE"` also builds the `_FILE` variant.
    static func codeReads(variable name: String) -> Bool {
        if sourcesContain("\"\(name)\"") { return true }
        guard name.hasSuffix("_FILE") else { return false }
        let base = String(name.dropLast("_FILE".count))
        return sources.values.contains { $0.contains("\"\(base)\"") && $0.contains("_FILE\"") }
    }

    /// The queue names the registered job kinds use (`static let queue = "…"`), plus `default`.
    static var knownQueues: Set<String> {
        var queues: Set<String> = ["default"]
        let pattern = try! NSRegularExpression(pattern: #"static let queue = "([a-z0-9_.-]+)""#)
        for text in sources.values {
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                queues.insert(String(text[Range(match.range(at: 1), in: text)!]))
            }
        }
        return queues
    }

    /// The value of `--flag N` in an argument list.
    static func flagValue(_ flag: String, in arguments: [String]) -> String? {
        for (index, argument) in arguments.enumerated() {
            if argument == flag, index + 1 < arguments.count { return arguments[index + 1] }
            if argument.hasPrefix(flag + "=") { return String(argument.dropFirst(flag.count + 1)) }
        }
        return nil
    }

    /// Seconds of a duration in compose (`60s`, `1m30s`) or systemd (`60`, `1min 30s`, `2m`) syntax.
    static func seconds(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let plain = Double(trimmed) { return plain }
        let units: [(String, Double)] = [("ms", 0.001), ("us", 0.000001), ("min", 60), ("sec", 1), ("h", 3600),
                                         ("m", 60), ("s", 1)]
        var total = 0.0
        var rest = Substring(trimmed.replacingOccurrences(of: " ", with: ""))
        while !rest.isEmpty {
            let digits = rest.prefix { $0.isNumber || $0 == "." }
            guard let value = Double(digits) else { return nil }
            rest = rest.dropFirst(digits.count)
            guard let (unit, factor) = units.first(where: { rest.hasPrefix($0.0) }) else { return nil }
            total += value * factor
            rest = rest.dropFirst(unit.count)
        }
        return total
    }

    /// Regex matches of `pattern` in `text`: the first capture group, or the whole match.
    static func matches(_ pattern: String, in text: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: pattern)
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
            let range = match.numberOfRanges > 1 ? match.range(at: 1) : match.range
            return String(text[Range(range, in: text)!])
        }
    }
}

/// Runs a program and collects its output.
enum Command {
    struct Output {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// Runs `executable` to completion, killed after `timeout` seconds (then ``ProcessTimedOut``).
    static func run(_ executable: String, _ arguments: [String], timeout: Double = 300) throws -> Output {
        let output: CapturedOutput
        do {
            output = try runSubprocessBlocking(URL(fileURLWithPath: executable), arguments, timeout: timeout)
        } catch let error as ProcessTimedOut {
            throw error
        } catch {
            throw DeployTestError("cannot run \(executable): \(error)")
        }
        return Output(status: output.status, standardOutput: output.stdout, standardError: output.stderr)
    }
}
