import Foundation
import RepartoRuntime
import Metrics
import Operations
import Testing

@Suite("Prometheus metrics exposition", .timeLimit(.minutes(2)))
struct MetricsExpositionTests {
    init() { RepartoMetrics.bootstrap() }

    @Test func jobMetricsAreExposedWithTheirTypesAndLabels() {
        let kind = "unit-\(UUID().uuidString.prefix(8).lowercased())"
        for name in ["started", "succeeded", "failed", "retried", "dead"] {
            Counter(label: "reparto_jobs_\(name)_total", dimensions: [("kind", kind)]).increment()
        }
        Counter(label: "reparto_jobs_succeeded_total", dimensions: [("kind", kind)]).increment()
        Timer(label: "reparto_job_duration_seconds", dimensions: [("kind", kind)], preferredDisplayUnit: .seconds)
            .record(duration: .milliseconds(30))
        Timer(label: "reparto_job_duration_seconds", dimensions: [("kind", kind)], preferredDisplayUnit: .seconds)
            .record(duration: .seconds(200))
        Gauge(label: "reparto_jobs_in_flight").record(3)

        let text = RepartoMetrics.exposition()
        for name in ["started", "failed", "retried", "dead"] {
            #expect(text.contains("# TYPE reparto_jobs_\(name)_total counter"))
            #expect(seriesValue("reparto_jobs_\(name)_total{kind=\"\(kind)\"}", in: text) == 1)
        }
        #expect(seriesValue("reparto_jobs_succeeded_total{kind=\"\(kind)\"}", in: text) == 2)
        #expect(text.contains("# TYPE reparto_job_duration_seconds histogram"))
        // Sensible buckets: 30 ms falls in the 50 ms bucket; 200 s needs the 300 s bucket.
        #expect(seriesValue("reparto_job_duration_seconds_bucket{kind=\"\(kind)\",le=\"0.025\"}", in: text) == 0)
        #expect(seriesValue("reparto_job_duration_seconds_bucket{kind=\"\(kind)\",le=\"0.05\"}", in: text) == 1)
        #expect(seriesValue("reparto_job_duration_seconds_bucket{kind=\"\(kind)\",le=\"120.0\"}", in: text) == 1)
        #expect(seriesValue("reparto_job_duration_seconds_bucket{kind=\"\(kind)\",le=\"300.0\"}", in: text) == 2)
        #expect(seriesValue("reparto_job_duration_seconds_count{kind=\"\(kind)\"}", in: text) == 2)
        #expect(text.contains("# TYPE reparto_jobs_in_flight gauge"))
    }

    @Test func backlogGaugesAndConnectionMetrics() {
        let queue = "unit-\(UUID().uuidString.prefix(8).lowercased())"
        Gauge(label: "reparto_queue_lag_seconds", dimensions: [("queue", queue)]).record(12.5)
        Gauge(label: "reparto_outbox_backlog").record(7)
        let before = seriesValue("reparto_reconnects_total{component=\"listener_postgres\"}", in: RepartoMetrics.exposition()) ?? 0

        let health = ConnectionHealth()
        health.require(.listenerDatabase)
        health.markUp(.listenerDatabase)      // first connection: not a reconnect
        health.markDown(.listenerDatabase)
        health.markUp(.listenerDatabase)      // a reconnect
        health.markUp(.listenerDatabase)      // still up: not another one

        let text = RepartoMetrics.exposition()
        #expect(seriesValue("reparto_queue_lag_seconds{queue=\"\(queue)\"}", in: text) == 12.5)
        #expect(text.contains("# TYPE reparto_outbox_backlog gauge"))
        #expect(text.contains("# TYPE reparto_reconnects_total counter"))
        #expect(seriesValue("reparto_reconnects_total{component=\"listener_postgres\"}", in: text) == before + 1)
        #expect(text.contains("# TYPE reparto_connection_up gauge"))
    }
}
