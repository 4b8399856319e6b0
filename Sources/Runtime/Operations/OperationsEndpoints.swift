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
    /// Environment variable: the dashboard's PostgreSQL URL (normally the read-only
    /// `reparto_dashboard` role); the cluster's `REPARTO_DATABASE_URL` when unset.
    public static let dashboardDatabaseURLVariable = "REPARTO_DASHBOARD_DATABASE_URL"
    /// Environment variable: the password for ``dashboardDatabaseURLVariable``.
    public static let dashboardDatabasePasswordVariable = "REPARTO_DASHBOARD_DATABASE_PASSWORD"
    /// Environment variable: a file holding the cluster's PostgreSQL password (Docker/Kubernetes secrets).
    public static let databasePasswordFileVariable = "REPARTO_DATABASE_PASSWORD_FILE"
    /// Environment variable: a file holding the RabbitMQ password (Docker/Kubernetes secrets).
    public static let amqpPasswordFileVariable = "REPARTO_AMQP_PASSWORD_FILE"
    /// Environment variable: a file holding the dashboard's PostgreSQL password.
    public static let dashboardDatabasePasswordFileVariable = "REPARTO_DASHBOARD_DATABASE_PASSWORD_FILE"
    /// Seconds between the coordinator's samples of queue lag and outbox backlog.
    public static let backlogSampleInterval: Double = 5
}
