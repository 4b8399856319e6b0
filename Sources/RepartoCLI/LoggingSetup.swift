import Logging
import Synchronization

/// Bootstraps swift-log once per process (stderr, chosen level).
enum LoggingSetup {
    private static let done = Mutex(false)

    static func bootstrap(level: Logger.Level) {
        let first = done.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
