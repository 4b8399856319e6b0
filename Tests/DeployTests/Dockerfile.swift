import Foundation

/// Just enough of a Dockerfile parser for the checks: stages, their instructions, ARG defaults.
struct Dockerfile {
    struct Instruction {
        var keyword: String
        var arguments: String
    }

    struct Stage {
        var image: String
        var name: String?
        var instructions: [Instruction] = []

        func all(_ keyword: String) -> [String] {
            instructions.filter { $0.keyword == keyword }.map(\.arguments)
        }

        /// Packages of every `apt-get install` in this stage's RUN instructions.
        var installedPackages: [String] {
            var packages: [String] = []
            for run in all("RUN") {
                for command in run.components(separatedBy: "&&").flatMap({ $0.components(separatedBy: ";") }) {
                    let words = command.split(whereSeparator: \.isWhitespace).map(String.init)
                    guard let apt = words.firstIndex(where: { $0 == "apt-get" || $0 == "apt" }),
                          let install = words[apt...].firstIndex(of: "install") else { continue }
                    packages += words[(install + 1)...].filter { !$0.hasPrefix("-") && !$0.contains("=") }
                }
            }
            return packages
        }

        /// `COPY --from=<stage> sources… destination` instructions.
        func copies(from stage: String) -> [(sources: [String], destination: String)] {
            all("COPY").compactMap { arguments in
                let words = arguments.split(whereSeparator: \.isWhitespace).map(String.init)
                guard words.contains("--from=\(stage)") else { return nil }
                let paths = words.filter { !$0.hasPrefix("--") }
                guard paths.count >= 2 else { return nil }
                return (Array(paths.dropLast()), paths.last!)
            }
        }

        /// `ENV` assignments (`ENV A=1 B=2`, continuation lines joined).
        var environment: [String: String] {
            var values: [String: String] = [:]
            for arguments in all("ENV") {
                for word in arguments.split(whereSeparator: \.isWhitespace) {
                    guard let eq = word.firstIndex(of: "=") else { continue }
                    values[String(word[..<eq])] = String(word[word.index(after: eq)...]).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                }
            }
            return values
        }
    }

    var arguments: [String: String] = [:]
    var stages: [Stage] = []

    init(_ text: String) {
        var logical: [String] = []
        var current = ""
        for rawLine in text.components(separatedBy: "\n") {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") || (line.isEmpty && current.isEmpty) { continue }
            if line.hasSuffix("\\") {
                current += line.dropLast() + " "
            } else {
                current += line
                if !current.trimmingCharacters(in: .whitespaces).isEmpty { logical.append(current) }
                current = ""
            }
        }
        for line in logical {
            let keyword = String(line.prefix { !$0.isWhitespace }).uppercased()
            let rest = line.dropFirst(keyword.count).trimmingCharacters(in: .whitespaces)
            switch keyword {
            case "FROM":
                let words = rest.split(whereSeparator: \.isWhitespace).map(String.init).filter { !$0.hasPrefix("--") }
                var image = words.first ?? ""
                for (name, value) in arguments { image = image.replacingOccurrences(of: "${\(name)}", with: value) }
                let name = words.count >= 3 && words[1].uppercased() == "AS" ? words[2] : nil
                stages.append(Stage(image: image, name: name))
            case "ARG" where stages.isEmpty:
                if let eq = rest.firstIndex(of: "=") {
                    arguments[String(rest[..<eq])] = String(rest[rest.index(after: eq)...])
                }
            default:
                if !stages.isEmpty {
                    stages[stages.count - 1].instructions.append(Instruction(keyword: keyword, arguments: rest))
                }
            }
        }
    }

    /// The stage the image is made of: the last one.
    var runtime: Stage? { stages.last }

    func stage(named name: String) -> Stage? { stages.first { $0.name == name } }

    /// The exec-form words of an instruction (`ENTRYPOINT ["a", "b"]`).
    static func execForm(_ arguments: String) -> [String]? {
        guard let data = arguments.data(using: .utf8),
              let words = try? JSONSerialization.jsonObject(with: data) as? [String] else { return nil }
        return words
    }
}
