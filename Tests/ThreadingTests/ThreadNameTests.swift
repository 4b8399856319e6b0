import Foundation
import Synchronization
import Testing
import Threading

@Suite("ThreadName", .timeLimit(.minutes(1)))
struct ThreadNameTests {
    @Test func aShortNameIsKeptAndALongOneCutOnACharacterBoundary() {
        #expect(ThreadName.fitted("reparto-commits") == "reparto-commits")
        #expect(ThreadName.fitted("reparto-worker-heartbeat") == "reparto-worker-")
        // "é" is two bytes: the cut falls before a character that would pass the limit.
        let cut = ThreadName.fitted("reparto-écoutes-x")
        #expect(cut == "reparto-écoute")
        #expect(cut.utf8.count <= ThreadName.limit)
    }

    /// The name Linux holds for the running thread (what `top -H` and `/proc/…/comm` show).
    @available(*, noasync)
    private static func currentName() -> String {
        let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        return comm.trimmingCharacters(in: .newlines)
    }

    /// An owned thread with a name past the limit runs under its fitted name, not its creator's.
    @Test func anOwnedThreadWithALongNameIsNamed() async throws {
        let seen = Mutex<String?>(nil)
        let thread = OwnedThread(name: "reparto-a-name-past-the-limit")
        thread.start { _ in seen.withLock { $0 = Self.currentName() } }
        await thread.stop()
        #expect(seen.withLock { $0 } == ThreadName.fitted("reparto-a-name-past-the-limit"))
    }
}
