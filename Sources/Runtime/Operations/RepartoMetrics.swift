import Metrics
import Prometheus
import Synchronization

/// The process's Prometheus registry and the swift-metrics bootstrap that feeds it.
///
/// The job runtime emits through swift-metrics (`Counter`, `Gauge`, `Timer`); after ``bootstrap()``
/// those land in ``registry``, which `/metrics` renders. Timers become histograms; the job duration
/// histogram gets buckets from 5 ms to 5 min, since job kinds range from no-ops to speech synthesis.
public enum RepartoMetrics {
    /// The registry `/metrics` exposes.
    public static let registry = PrometheusCollectorRegistry()

    /// Buckets of `reparto_job_duration_seconds`.
    public static let jobDurationBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
        .seconds(30), .seconds(60), .seconds(120), .seconds(300),
    ]

    private static let bootstrapped = Mutex(false)

    /// The swift-metrics factory writing into ``registry``.
    public static func makeFactory() -> PrometheusMetricsFactory {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["reparto_job_duration_seconds"] = jobDurationBuckets
        return factory
    }

    /// Bootstraps swift-metrics with ``makeFactory()``, once per process (later calls do nothing).
    ///
    /// The bootstrap happens inside the lock: a concurrent caller must not return (and create
    /// metrics against swift-metrics' no-op default) before the factory is installed.
    public static func bootstrap() {
        bootstrapped.withLock { done in
            guard !done else { return }
            MetricsSystem.bootstrap(makeFactory())
            done = true
        }
    }

    /// The Prometheus text exposition of everything recorded so far.
    public static func exposition() -> String { registry.emitToString() }
}
