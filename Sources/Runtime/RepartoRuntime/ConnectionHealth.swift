import Metrics
import Synchronization

/// Whether a process is connected to what it needs: the signal behind `/readyz`.
///
/// The worker, the coordinator and the outbox relay declare the connections they need
/// (``require(_:)``) and report each (re)connection and loss (``markUp(_:)``, ``markDown(_:)``)
/// from the threads that own those connections. The process is ready when every required
/// component is up. Each transition also updates the gauge `reparto_connection_up{component}`, and a
/// connection that comes back after a loss counts in `reparto_reconnects_total{component}`.
public final class ConnectionHealth: Sendable {
    /// A connection a process may need.
    public enum Component: String, Sendable, CaseIterable, Comparable {
        /// The worker's AMQP consumer connection.
        case consumerBroker = "amqp_consumer"
        /// The worker's PostgreSQL pool (seen through heartbeats and job commits).
        case workerDatabase = "worker_postgres"
        /// The outbox relay's AMQP publisher connection.
        case relayBroker = "relay_amqp"
        /// The outbox relay's PostgreSQL connection.
        case relayDatabase = "relay_postgres"
        /// The coordinator's PostgreSQL connection.
        case coordinatorDatabase = "coordinator_postgres"
        /// A `LISTEN` connection.
        case listenerDatabase = "listener_postgres"

        /// Orders components by declaration, so reasons are listed in a stable order.
        public static func < (lhs: Self, rhs: Self) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }

        /// What the component is, for a readiness reason.
        public var displayName: String {
            switch self {
            case .consumerBroker: "RabbitMQ (consumer)"
            case .workerDatabase: "PostgreSQL (worker pool)"
            case .relayBroker: "RabbitMQ (outbox relay)"
            case .relayDatabase: "PostgreSQL (outbox relay)"
            case .coordinatorDatabase: "PostgreSQL (coordinator)"
            case .listenerDatabase: "PostgreSQL (listener)"
            }
        }
    }

    private struct Entry {
        var up = false
        var everUp = false
    }

    private let entries = Mutex<[Component: Entry]>([:])

    /// An empty health: ready until something is required.
    public init() {}

    /// Declares that readiness needs `component`; it counts as down until ``markUp(_:)``.
    public func require(_ component: Component) {
        entries.withLock { entries in
            if entries[component] == nil { entries[component] = Entry() }
        }
        Gauge(label: "reparto_connection_up", dimensions: [("component", component.rawValue)]).record(0)
    }

    /// Records that `component` is connected; a connection after an earlier one counts as a reconnect.
    public func markUp(_ component: Component) {
        let reconnected = entries.withLock { entries -> Bool in
            var entry = entries[component] ?? Entry()
            defer {
                entry.up = true
                entry.everUp = true
                entries[component] = entry
            }
            return entry.everUp && !entry.up
        }
        Gauge(label: "reparto_connection_up", dimensions: [("component", component.rawValue)]).record(1)
        if reconnected {
            Counter(label: "reparto_reconnects_total", dimensions: [("component", component.rawValue)]).increment()
        }
    }

    /// Records that `component` lost its connection (or could not connect). The error itself goes to
    /// the log, not to `/readyz`, which stays short and free of server details.
    public func markDown(_ component: Component) {
        entries.withLock { entries in
            var entry = entries[component] ?? Entry()
            entry.up = false
            entries[component] = entry
        }
        Gauge(label: "reparto_connection_up", dimensions: [("component", component.rawValue)]).record(0)
    }

    /// Whether `component` is up now.
    public func isUp(_ component: Component) -> Bool {
        entries.withLock { $0[component]?.up ?? false }
    }

    /// Ready when every required component is up; otherwise the reasons, one per component down.
    public var status: ReadinessStatus {
        let snapshot = entries.withLock { $0 }
        var problems: [String] = []
        for (component, entry) in snapshot.sorted(by: { $0.key < $1.key }) {
            guard !entry.up else { continue }
            let detail = entry.everUp ? "disconnected" : "not connected yet"
            problems.append("\(component.displayName): \(detail)")
        }
        return ReadinessStatus(problems: problems)
    }
}

/// The outcome of a readiness check: ready, or the reasons it is not.
public struct ReadinessStatus: Sendable, Equatable {
    /// Short reasons, one per missing dependency; empty when ready.
    public var problems: [String]

    /// A status with these problems (none: ready).
    public init(problems: [String] = []) { self.problems = problems }

    /// True when nothing is missing.
    public var isReady: Bool { problems.isEmpty }

    /// One line for the `/readyz` body.
    public var summary: String { isReady ? "ready" : "not ready: " + problems.joined(separator: "; ") }
}
