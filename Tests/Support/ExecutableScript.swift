import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes executable stand-ins (a fake ffmpeg, an espeak-ng wrapper) that tests then run.
///
/// A script written through a descriptor of the test process can fail to run with ETXTBSY
/// ("Text file busy"): a child another test spawns at that moment inherits the descriptor until
/// its exec. So a shell of its own writes the file; this process never opens it.
public enum ExecutableScript {
    /// A script that could not be written.
    public struct WriteFailed: Error, CustomStringConvertible {
        public let description: String
    }

    /// Writes `text` to `url` with mode 755, replacing what is there.
    public static func write(_ text: String, to url: URL) throws {
        let argv: [String] = ["/bin/sh", "-c", #"printf '%s' "$1" > "$0" && chmod 755 "$0""#, url.path, text]
        let cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArgs { free(pointer) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, "/bin/sh", nil, nil, cArgs, environ)
        guard code == 0 else { throw WriteFailed(description: "cannot run /bin/sh: \(String(cString: strerror(code)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else { throw WriteFailed(description: "could not write \(url.path) (wait status \(status))") }
    }
}
