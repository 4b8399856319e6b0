/// The HTTP paths, ports and environment variables operators and orchestrators rely on.
///
/// deploy/ (Docker, compose, Kubernetes, systemd, Grafana) is checked against these values by
/// `Tests/DeployTests`, so a change here shows up as a failing deploy test, not a broken rollout.
public enum OperationsEndpoints {
    /// Liveness: 200 while the process runs.
    public static let healthPath = "/healthz"
    /// Readiness: 200 only while connected to RabbitMQ and PostgreSQL (the dashboard: PostgreSQL).
    public static let readyPath = "/readyz"
    /// Prometheus text exposition.
    public static let metricsPath = "/metrics"
    /// The dashboard's JSON API lives below this prefix.
    public static let apiPrefix = "/api"
    /// The metrics and health port deploy/ uses for workers and coordinators (`--metrics-port`).
    public static let defaultMetricsPort = 9464
    /// The dashboard's default port (`reparto dashboard --port`).
    public static let defaultDashboardPort = 8080
    /// Environment variable that sets `--metrics-port` for `worker` and `coordinator`.
    public static let metricsPortVariable = "REPARTO_METRICS_PORT"
    /// Environment variable that sets `--log-format` (`text` or `json`).
    public static let logFormatVariable = "REPARTO_LOG_FORMAT"
}
