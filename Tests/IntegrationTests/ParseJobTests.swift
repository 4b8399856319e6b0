import SpeechJobs
import Assets
import Foundation
import RepartoRuntime
import TableRead
import Postgres
import Screenplay
import Testing

/// The `parse` job kind against real RabbitMQ and PostgreSQL, with a private asset root.
@Suite("parse job", .serialized, .timeLimit(.minutes(3)))
struct ParseJobTests {
    static let script = """
        Title: The Lighthouse
        Credit: Written by
        Author: Test Author
        Contact:
            Reparto Studios
            12 Harbour Lane

        # Act One

        EXT. LIGHTHOUSE - NIGHT #1#

        Waves crash against the *rocks*.

        KEEPER (V.O.)
        Nobody comes here anymore.

        ## Act Two

        INT. LAMP ROOM - CONTINUOUS

        BRAM
        Did you hear that?

        ELLA ^
        Hear what?

        > THE END <

        """

    /// A private asset root with the given files, and a registry with the parse kind.
    struct Fixture {
        let root: URL
        let registry: JobRegistry

        init(files: [String: [UInt8]]) throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-parse-\(UUID().uuidString)")
            for (path, bytes) in files {
                let url = root.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(bytes).write(to: url)
            }
            registry = JobRegistry()
            TableReadKinds.registerWithSpeech(in: registry, environment: SpeechEnvironment(assetsRoot: root, variables: [:]))
        }

        func remove() { try? FileManager.default.removeItem(at: root) }
    }

    static func storedElements(_ cluster: TestCluster, document: UUID) async throws -> [Element] {
        let rows = try await cluster.postgres.query("""
            SELECT chapter_index, order_index, type, text, plain_text, level, scene_number, name, extension, dual
            FROM document_elements WHERE document_id = $1 ORDER BY chapter_index, order_index
            """, [document])
        return rows.map { row in
            Element(type: ElementType(rawValue: row.string("type") ?? "") ?? .action, text: row.string("text") ?? "",
                    chapterIndex: row.int("chapter_index") ?? -1, orderIndex: row.int("order_index") ?? -1,
                    level: row.int("level"), sceneNumber: row.string("scene_number"), name: row.string("name"),
                    extension: row.string("extension"), dual: row.bool("dual"))
        }
    }

    @Test func parsesStoresAndReusesADocument() async throws {
        let bytes = Array(Self.script.utf8)
        let fixture = try Fixture(files: ["scripts/lighthouse.fountain": bytes])
        defer { fixture.remove() }
        let cluster = try await TestCluster.make()
        let worker = cluster.startWorker(registry: fixture.registry)

        let expected = try ScreenplayReader.read(bytes, fileName: "scripts/lighthouse.fountain")
        #expect(Set(expected.elements.map(\.chapterIndex)) == [0, 1], "two chapters: before and from `## Act Two`")
        #expect(expected.elements.contains { $0.dual == true })
        // The job's contract is to store what ScreenplayReader reads (the parsers are checked
        // against hand-worked values in ScreenplayTests), so the reader is the right oracle for the
        // rows below. Worked out by hand, so both cannot be wrong together: 12 elements (2 section
        // headings, 2 scene headings, 1 action, 3 cues, 3 dialogue lines, 1 centered), scene
        // number 1, KEEPER's V.O., and four title-page keys.
        #expect(expected.elements.map(\.type) == [.sectionHeading, .sceneHeading, .action, .character, .dialogue,
                                                    .sectionHeading, .sceneHeading, .character, .dialogue,
                                                    .character, .dialogue, .centered])
        #expect(expected.elements[1].sceneNumber == "1")
        #expect(expected.elements[3].name == "KEEPER" && expected.elements[3].extension == "V.O.")
        #expect(expected.titlePage.map(\.key) == ["Title", "Credit", "Author", "Contact"])

        let first = try await cluster.client.enqueue(ParseJob(sourcePath: "scripts/lighthouse.fountain"))
        let record = try await cluster.client.awaitJob(first, timeout: 60)
        #expect(record.state == .succeeded, "\(record.lastError ?? "")")
        let result = try #require(try record.decodeResult(ParseJobResult.self))
        #expect(result.reused == false)
        #expect(result.format == "fountain")
        #expect(result.elementCount == expected.elements.count)
        #expect(result.sha256.count == 64)

        let stored = try await Self.storedElements(cluster, document: result.documentID)
        #expect(stored == expected.elements)
        let plain = try await cluster.postgres.query(
            "SELECT plain_text FROM document_elements WHERE document_id = $1 ORDER BY chapter_index, order_index", [result.documentID])
        #expect(plain.map { $0.string("plain_text") } == expected.elements.map(\.plainText))
        let titleRows = try await cluster.postgres.query(
            "SELECT key, array_to_json(\"values\")::text AS v FROM document_title_page WHERE document_id = $1 ORDER BY position",
            [result.documentID])
        let title = try titleRows.map { row in
            TitlePageEntry(key: row.string("key") ?? "",
                           values: try JSONDecoder().decode([String].self, from: Data((row.string("v") ?? "[]").utf8)))
        }
        #expect(title == expected.titlePage)
        let document = try #require(try await cluster.postgres.query(
            "SELECT source_path, source_sha256, format, element_count FROM documents WHERE id = $1", [result.documentID]).first)
        #expect(document.string("source_path") == "scripts/lighthouse.fountain")
        #expect(document.string("source_sha256") == result.sha256)
        #expect(document.int("element_count") == expected.elements.count)

        // The same bytes again: the document is reused, not copied.
        let second = try await cluster.client.enqueue(ParseJob(sourcePath: "scripts/lighthouse.fountain"))
        let again = try await cluster.client.awaitJob(second, timeout: 60)
        #expect(again.state == .succeeded)
        let reused = try #require(try again.decodeResult(ParseJobResult.self))
        #expect(reused.reused == true)
        #expect(reused.documentID == result.documentID)
        #expect(reused.elementCount == result.elementCount)
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM documents") == 1)
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM document_elements") == expected.elements.count)
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM document_title_page") == expected.titlePage.count)

        try await worker.stop()
        await cluster.shutdown()
    }

    @Test func concurrentDuplicatesStoreOneDocument() async throws {
        let bytes = Array((Self.script + "\nEXT. SHORE - DAY\n\nSilence.\n").utf8)
        let fixture = try Fixture(files: ["a.fountain": bytes, "b.fountain": bytes])
        defer { fixture.remove() }
        let cluster = try await TestCluster.make()
        // The store runs in each job's completion transaction, and one worker commits its
        // completions one batch at a time: only two workers can race. Each takes one job at a
        // time; a lock on `documents` holds both completion transactions at their INSERT until
        // both are seen waiting, so the two stores provably overlap.
        let lock = TableLockHolder(cluster.postgresConfiguration, table: "documents")
        defer { lock.release() }  // also when the test fails early (a second signal is harmless)
        try await cluster.wait(for: "the documents lock") {
            try await cluster.count(Self.documentsLocks + " AND granted AND mode = 'AccessExclusiveLock'") == 1
        }
        let workers = [cluster.startWorker(registry: fixture.registry, concurrency: 1, prefetch: 1),
                       cluster.startWorker(registry: fixture.registry, concurrency: 1, prefetch: 1)]
        let ids = try await cluster.client.enqueue((0..<8).map { try JobRequest(ParseJob(sourcePath: $0 % 2 == 0 ? "a.fountain" : "b.fountain")) })
        try await cluster.wait(for: "two completion transactions waiting to store the document") {
            try await cluster.count(Self.documentsLocks.replacingOccurrences(of: "count(*)", with: "count(DISTINCT pid)")
                                    + " AND NOT granted") >= 2
        }
        lock.release()
        var results: [ParseJobResult] = []
        for id in ids {
            let record = try await cluster.client.awaitJob(id, timeout: 60)
            #expect(record.state == .succeeded, "\(record.lastError ?? "")")
            if let result = try record.decodeResult(ParseJobResult.self) { results.append(result) }
        }
        #expect(results.count == 8)
        #expect(Set(results.map(\.documentID)).count == 1)
        #expect(results.filter { !$0.reused }.count == 1)
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM documents") == 1)
        let expected = try ScreenplayReader.read(bytes, fileName: "a.fountain")
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM document_elements") == expected.elements.count)
        #expect(lock.failure == nil)
        for worker in workers { try await worker.stop() }
        await cluster.shutdown()
    }

    /// A Markdown treatment through the parse job (FDX has its own test below): detected by its
    /// extension and stored with the elements worked out by hand (docs/screenplay-format.md,
    /// Markdown: `#` is a level-1 section, a paragraph is action, `---` a page break).
    @Test func markdownInputIsParsedAndStored() async throws {
        let bytes = Array("# The Lighthouse\n\nA keeper counts the flashes.\n\n---\n\nThe lamp goes out.\n".utf8)
        let fixture = try Fixture(files: ["notes/treatment.md": bytes])
        defer { fixture.remove() }
        let cluster = try await TestCluster.make()
        let worker = cluster.startWorker(registry: fixture.registry)
        let record = try await cluster.client.awaitJob(
            try await cluster.client.enqueue(ParseJob(sourcePath: "notes/treatment.md")), timeout: 60)
        #expect(record.state == .succeeded, "\(record.lastError ?? "")")
        let result = try #require(try record.decodeResult(ParseJobResult.self))
        #expect(result.format == "markdown")
        #expect(result.elementCount == 4)
        let stored = try await Self.storedElements(cluster, document: result.documentID)
        #expect(stored.map { "\($0.type.rawValue)\($0.level.map(String.init) ?? ""):\($0.text)" } == [
            "sectionHeading1:The Lighthouse", "action:A keeper counts the flashes.", "pageBreak:", "action:The lamp goes out.",
        ])
        try await worker.stop()
        await cluster.shutdown()
    }

    /// Locks on this database's `documents` table (`pg_locks` spans every database).
    static let documentsLocks = """
        SELECT count(*)::int AS n FROM pg_locks
        WHERE relation = 'documents'::regclass AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
        """

    @Test func badInputDiesWithItsReasonAndStoresNothing() async throws {
        var garbage: [UInt8] = [0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00]
        var state: UInt32 = 12345
        for _ in 0..<512 {
            state = state &* 1_103_515_245 &+ 12345
            garbage.append(UInt8(truncatingIfNeeded: state >> 16))
        }
        let fixture = try Fixture(files: ["garbage.fountain": garbage, "empty.fountain": [], "big.fountain": Array(Self.script.utf8)])
        defer { fixture.remove() }
        let cluster = try await TestCluster.make()
        let worker = cluster.startWorker(registry: fixture.registry)
        let cases: [(ParseJob, String)] = [
            (ParseJob(sourcePath: "garbage.fountain"), "binary"),
            (ParseJob(sourcePath: "empty.fountain"), "empty input"),
            (ParseJob(sourcePath: "../outside.fountain"), "'..'"),
            (ParseJob(sourcePath: "scripts/../../etc/passwd"), "'..'"),
            (ParseJob(sourcePath: "/etc/passwd"), "relative"),
            (ParseJob(sourcePath: "missing.fountain"), "no asset at missing.fountain"),
            (ParseJob(sourcePath: "big.fountain", maxBytes: 10), "too large"),
            (ParseJob(sourcePath: "big.fountain", format: "pdf"), "unknown format"),
        ]
        for (parameters, reason) in cases {
            let id = try await cluster.client.enqueue(parameters)
            let record = try await cluster.client.awaitJob(id, timeout: 60)
            #expect(record.state == .dead, "\(parameters.sourcePath)")
            #expect(record.attempts == 1, "\(parameters.sourcePath): not retried")
            #expect(record.lastError?.contains(reason) == true, "\(parameters.sourcePath): \(record.lastError ?? "nil")")
        }
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM documents") == 0)
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM document_elements") == 0)
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM document_title_page") == 0)
        try await worker.stop()
        await cluster.shutdown()
    }

    /// Final Draft's dual dialogue (a `<DualDialogue>` inside a paragraph) is stored with both
    /// speakers; an unknown paragraph type is kept as action and its warning stored; and a parse
    /// of the same bytes by the first parser (which dropped the nested lines) is not reused.
    @Test func finalDraftDualDialogueIsStoredAndAnOlderParseIsNotReused() async throws {
        let fdx = """
            <?xml version="1.0" encoding="UTF-8" standalone="no" ?>
            <FinalDraft DocumentType="Script" Template="No" Version="5"><Content>
            <Paragraph Type="Scene Heading"><Text>INT. GALLEY - NIGHT</Text></Paragraph>
            <Paragraph Type="General"><Text></Text><DualDialogue>
            <Paragraph Type="Character"><Text>COOK</Text></Paragraph><Paragraph Type="Dialogue"><Text>Soup's on.</Text></Paragraph>
            <Paragraph Type="Character"><Text>MATE</Text></Paragraph><Paragraph Type="Dialogue"><Text>Again?</Text></Paragraph>
            </DualDialogue></Paragraph>
            <Paragraph Type="Storyboard Frame"><Text>Frame 12.</Text></Paragraph>
            </Content></FinalDraft>
            """
        let bytes = Array(fdx.utf8)
        let fixture = try Fixture(files: ["scripts/galley.fdx": bytes])
        defer { fixture.remove() }
        let cluster = try await TestCluster.make()
        // What the first parser stored for these bytes: the heading and the stray action only.
        let hex = AssetStore.sha256(Data(bytes))
        let digest = stride(from: 0, to: hex.count, by: 2).map { i -> UInt8 in
            let start = hex.index(hex.startIndex, offsetBy: i)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
        }
        let legacy = DocumentIdentity.id(fromSHA256: digest)
        try await cluster.postgres.query("""
            INSERT INTO documents (id, source_path, source_sha256, format, element_count) VALUES ($1, 'scripts/galley.fdx', $2, 'fdx', 2)
            """, [legacy, hex])
        let worker = cluster.startWorker(registry: fixture.registry)

        let id = try await cluster.client.enqueue(ParseJob(sourcePath: "scripts/galley.fdx"))
        let record = try await cluster.client.awaitJob(id, timeout: 60)
        #expect(record.state == .succeeded, "\(record.lastError ?? "")")
        let result = try #require(try record.decodeResult(ParseJobResult.self))
        #expect(result.reused == false)
        #expect(result.documentID != legacy)
        #expect(result.warnings?.map(\.code) == [.unknownParagraphType])
        let stored = try await Self.storedElements(cluster, document: result.documentID)
        #expect(stored.map(\.text) == ["INT. GALLEY - NIGHT", "COOK", "Soup's on.", "MATE", "Again?", "Frame 12."])
        #expect(stored.map(\.dual) == [nil, nil, nil, true, nil, nil])
        #expect(stored.last?.type == .action)
        let row = try #require(try await cluster.postgres.query(
            "SELECT parser_version, warnings::text AS w FROM documents WHERE id = $1", [result.documentID]).first)
        #expect(row.int("parser_version") == ScreenplayReader.parserVersion)
        let warnings = try #require(try row.json("w", as: [ParseWarning].self))
        #expect(warnings.map(\.code) == [.unknownParagraphType])

        // This parser's row is reused for the same bytes.
        let again = try await cluster.client.awaitJob(try await cluster.client.enqueue(ParseJob(sourcePath: "scripts/galley.fdx")),
                                                      timeout: 60)
        let reused = try #require(try again.decodeResult(ParseJobResult.self))
        #expect(reused.reused == true && reused.documentID == result.documentID)
        #expect(reused.warnings?.count == 1)
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM documents") == 2)
        try await worker.stop()
        await cluster.shutdown()
    }
}

/// Holds `LOCK TABLE … IN ACCESS EXCLUSIVE MODE` in an open transaction on a connection and thread
/// of its own until ``release()``; then rolls back and closes.
///
/// `@unchecked Sendable`: the connection never leaves its thread; `failure` is guarded by `lock`.
final class TableLockHolder: @unchecked Sendable {
    private let gate = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var _failure: String?
    var failure: String? { lock.withLock { _failure } }

    init(_ configuration: PostgresConfiguration, table: String) {
        Thread { [self] in
            do {
                let connection = try PostgresConnection.connect(configuration)
                defer { connection.close() }
                try connection.execute("BEGIN; LOCK TABLE \(table) IN ACCESS EXCLUSIVE MODE")
                gate.wait()  // a semaphore on this test-owned thread, never in async code
                try connection.execute("ROLLBACK")
            } catch {
                lock.withLock { _failure = "\(error)" }
            }
        }.start()
    }

    func release() { gate.signal() }
}
