import Foundation

/// The ffmpeg executable, run quietly with its standard error kept for figures and errors, under
/// a deadline. Blocking: call it off the cooperative pool.
public struct FFmpegTool: Sendable, Hashable {
    public let executable: URL
    /// How long one run may take before it is killed and fails. Audio of a long table read takes
    /// minutes on a busy machine; nothing the cluster asks of ffmpeg takes half an hour.
    public let timeout: Duration

    public init(executable: URL, timeout: Duration = .seconds(30 * 60)) {
        self.executable = executable
        self.timeout = timeout
    }

    /// The same executable under another deadline.
    public func withTimeout(_ timeout: Duration) -> FFmpegTool {
        FFmpegTool(executable: executable, timeout: timeout)
    }

    /// `REPARTO_FFMPEG`, else the first `ffmpeg` on `PATH`; nil when there is none.
    public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) -> FFmpegTool? {
        if let path = environment["REPARTO_FFMPEG"], !path.isEmpty {
            return FileManager.default.isExecutableFile(atPath: path) ? FFmpegTool(executable: URL(fileURLWithPath: path)) : nil
        }
        for directory in (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/ffmpeg"
            if FileManager.default.isExecutableFile(atPath: candidate) { return FFmpegTool(executable: URL(fileURLWithPath: candidate)) }
        }
        return nil
    }

    /// Runs ffmpeg with `arguments` and returns (the last MiB of) its standard error.
    /// - Throws: ``AudioToolError`` when it cannot start, exits with a failure or outlives
    ///   ``timeout`` (it is killed then).
    @available(*, noasync, message: "runs ffmpeg and waits; call it off the cooperative pool")
    public func run(_ arguments: [String]) throws(AudioToolError) -> String {
        let out: ProcessRunner.BoundedOutput
        do {
            out = try ProcessRunner.runBounded(executable: executable, arguments: ["-hide_banner", "-nostats", "-nostdin"] + arguments,
                                               timeout: timeout)
        } catch {
            throw AudioToolError(description: "cannot run \(executable.path): \(error)")
        }
        let text = String(decoding: out.stderr, as: UTF8.self)
        guard !out.timedOut else {
            throw AudioToolError(description: "ffmpeg did not finish within \(timeout.components.seconds) s, so it was stopped")
        }
        guard out.status == 0 else {
            throw AudioToolError(description: "ffmpeg exited with \(out.status): \(Self.tail(text))")
        }
        return text
    }

    static func tail(_ text: String) -> String {
        String(text.split(separator: "\n").suffix(2).joined(separator: " / ").suffix(300))
    }
}
