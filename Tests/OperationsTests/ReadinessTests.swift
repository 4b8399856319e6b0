import Foundation
import RepartoRuntime
import Operations
import Testing

@Suite("Readiness and health endpoints", .timeLimit(.minutes(1)))
struct ReadinessTests {
    @Test func readyOnlyWhenEveryRequiredConnectionIsUp() {
        let health = ConnectionHealth()
        #expect(health.status.isReady)
        health.require(.consumerBroker)
        health.require(.workerDatabase)
        #expect(health.status == ReadinessStatus(problems: [
            "RabbitMQ (consumer): not connected yet", "PostgreSQL (worker pool): not connected yet"]))
        health.markUp(.workerDatabase)
        #expect(health.status.problems == ["RabbitMQ (consumer): not connected yet"])
        health.markUp(.consumerBroker)
        #expect(health.status.isReady)
        #expect(health.status.summary == "ready")
        health.markDown(.consumerBroker)
        #expect(!health.isUp(.consumerBroker))
        #expect(health.status.summary == "not ready: RabbitMQ (consumer): disconnected")
        health.markUp(.consumerBroker)
        #expect(health.status.isReady)
    }

    @Test func requiringTwiceKeepsTheState() {
        let health = ConnectionHealth()
        health.require(.relayDatabase)
        health.markUp(.relayDatabase)
        health.require(.relayDatabase) // a relay sharing the worker's health declares it again
        #expect(health.status.isReady)
    }

    @Test func endpointsFollowTheHealth() async throws {
        let health = ConnectionHealth()
        health.require(.consumerBroker)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = OperationsServer.buildApplication(
            host: "127.0.0.1", port: 0, readiness: { health.status }, logger: .init(label: "test"),
            onListening: { continuation.yield($0) })
        let server = try await TestServer.start(app, ports: ports, portsContinuation: continuation)

        let notReady = try await server.get(OperationsEndpoints.readyPath)
        #expect(notReady.status == 503)
        #expect(notReady.body.contains("RabbitMQ (consumer): not connected yet"))
        #expect(try await server.get(OperationsEndpoints.healthPath).status == 200)

        health.markUp(.consumerBroker)
        let ready = try await server.get(OperationsEndpoints.readyPath)
        #expect(ready.status == 200)
        #expect(ready.body == "ready\n")

        let metrics = try await server.get(OperationsEndpoints.metricsPath)
        #expect(metrics.status == 200)
        #expect(metrics.contentType?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(try await server.get("/nope").status == 404)
        try await server.stop()
    }
}
