import Logging
import Synchronization

/// Bootstraps swift-log once per process (stderr, chosen level and format).
public enum LoggingSetup {
    private static let done = Mutex(false)

    public static func bootstrap(level: Logger.Level, format: LogFormat = .text) {
        let first = done.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        LoggingSystem.bootstrap { label in
            format.makeHandler(label: label, level: level)
        }
    }
}
