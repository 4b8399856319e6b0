import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import ServiceLifecycle

/// An HTTP application running in a ServiceGroup for one test, on the port it reported.
final class TestServer: Sendable {
    struct NotStarted: Error {}

    let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(port: Int, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.group = group
        self.task = task
    }

    /// Starts `service`; `ports` is where its `onListening` callback yields the bound port.
    static func start(_ service: some Service, ports: AsyncStream<Int>, portsContinuation: AsyncStream<Int>.Continuation) async throws -> TestServer {
        var logger = Logger(label: "test.server")
        logger.logLevel = .warning
        let group = ServiceGroup(configuration: .init(services: [.init(service: service)], logger: logger))
        let task = Task {
            defer { portsContinuation.finish() }
            try await group.run()
        }
        for await port in ports {
            return TestServer(port: port, group: group, task: task)
        }
        try await task.value
        throw NotStarted()
    }

    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }

    /// GET `path`: status, body and content type.
    func get(_ path: String) async throws -> (status: Int, body: String, contentType: String?) {
        let url = URL(string: "http://127.0.0.1:\(port)\(path)")!
        let (data, response) = try await URLSession.shared.data(from: url)
        let http = response as? HTTPURLResponse
        return (http?.statusCode ?? 0, String(decoding: data, as: UTF8.self), http?.value(forHTTPHeaderField: "Content-Type"))
    }
}

/// The value of one series (`name{labels}`, exactly as exposed) in Prometheus text, or nil.
func seriesValue(_ series: String, in exposition: String) -> Double? {
    for line in exposition.split(separator: "\n") where line.hasPrefix(series + " ") {
        return Double(line.dropFirst(series.count + 1))
    }
    return nil
}
