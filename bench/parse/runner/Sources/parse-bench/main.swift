import Foundation
import RepartoBench

// Usage: parse-bench FILE... [--iterations N]
var files: [String] = []
var iterations = 100
var args = CommandLine.arguments.dropFirst()
while let arg = args.popFirst() {
    if arg == "--iterations", let n = args.popFirst().flatMap({ Int($0) }) { iterations = n } else { files.append(arg) }
}
print(ParseBenchmark.header)
let benchmark = ParseBenchmark(iterations: iterations)
for path in files {
    guard let data = FileManager.default.contents(atPath: path) else {
        FileHandle.standardError.write(Data("\(path): cannot read\n".utf8))
        exit(1)
    }
    do {
        print(ParseBenchmark.line(file: path, result: try benchmark.run([UInt8](data), fileName: path)))
    } catch {
        FileHandle.standardError.write(Data("\(path): \(error)\n".utf8))
        exit(1)
    }
}
