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

    /// An owned thread with a name past the limit runs under its fitted name, not its creator's,
    /// from its first step: many started at once, as a busy process does (a CI run under load
    /// once saw one still named after the cooperative pool thread that started it).
    @Test func anOwnedThreadWithALongNameIsNamed() async throws {
        let seen = Mutex<[String]>([])
        let threads = (0..<64).map { _ in OwnedThread(name: "reparto-a-name-past-the-limit") }
        for thread in threads { thread.start { _ in seen.withLock { $0.append(Self.currentName()) } } }
        for thread in threads { await thread.stop() }
        let names = seen.withLock { $0 }
        #expect(names.count == 64)
        #expect(names.allSatisfy { $0 == ThreadName.fitted("reparto-a-name-past-the-limit") }, "\(Set(names))")
    }
}
