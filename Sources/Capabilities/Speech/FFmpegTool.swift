import Foundation

/// The ffmpeg executable, run quietly with its standard error kept for figures and errors.
/// Blocking: call it off the cooperative pool.
public struct FFmpegTool: Sendable, Hashable {
    public let executable: URL

    public init(executable: URL) {
        self.executable = executable
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

    /// Runs ffmpeg with `arguments` and returns its standard error.
    /// - Throws: ``AudioToolError`` when it cannot start or exits with a failure.
    @available(*, noasync, message: "runs ffmpeg and waits; call it off the cooperative pool")
    public func run(_ arguments: [String]) throws(AudioToolError) -> String {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["-hide_banner", "-nostats", "-nostdin"] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { throw AudioToolError(description: "cannot run \(executable.path): \(error.localizedDescription)") }
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw AudioToolError(description: "ffmpeg exited with \(process.terminationStatus): \(Self.tail(text))")
        }
        return text
    }

    static func tail(_ text: String) -> String {
        String(text.split(separator: "\n").suffix(2).joined(separator: " / ").suffix(300))
    }
}
