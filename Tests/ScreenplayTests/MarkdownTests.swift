import Testing
@testable import Screenplay

@Suite("Markdown", .timeLimit(.minutes(2)))
struct MarkdownTests {
    func md(_ text: String) -> [String] {
        MarkdownParser().parse(text).elements.map { e in
            "\(e.type.rawValue)\(e.level.map { "\($0)" } ?? ""):\(e.text)"
        }
    }

    @Test func atxHeadings() {
        #expect(md("# One\n## Two ##\n###### Six\n####### Seven") ==
                ["sectionHeading1:One", "sectionHeading2:Two", "sectionHeading6:Six", "action:####### Seven"])
        #expect(md("#NoSpace") == ["action:#NoSpace"])
    }

    @Test func setextHeadings() {
        #expect(md("Title\n=====\n\nSub\n---") == ["sectionHeading1:Title", "sectionHeading2:Sub"])
    }

    @Test func thematicBreaks() {
        #expect(md("A\n\n---\n\n* * *\n\n___") == ["action:A", "pageBreak:", "pageBreak:", "pageBreak:"])
    }

    @Test func codeBlocks() {
        #expect(md("```swift\nlet x = 1\n\n# not a heading\n```") == ["action:let x = 1\n\n# not a heading"])
        #expect(md("    code\n      more") == ["action:code\n  more"])
        #expect(md("~~~\nunclosed") == ["action:unclosed"])
    }

    @Test func quotesListsHtml() {
        #expect(md("> quoted\n> more") == ["action:quoted\nmore"])
        #expect(md("- a\n- b\n\n- c\n\n+ d") == ["action:- a\n- b\n- c", "action:+ d"])
        #expect(md("<!-- a\nb -->") == ["comment:a\nb"])
        #expect(md("<table>\n<tr></tr>\n</table>\n\nAfter") == ["comment:<table>\n<tr></tr>\n</table>", "action:After"])
    }

    @Test func levelTwoHeadingsStartChapters() {
        let els = MarkdownParser().parse("Intro\n\n## One\n\nA\n\nTwo\n---\n\nB").elements
        #expect(els.map(\.chapterIndex) == [0, 1, 1, 2, 2])
        #expect(els.map(\.orderIndex) == [1, 1, 2, 1, 2])
    }

    @Test func frontMatterNeedsClosingLine() {
        #expect(MarkdownParser().parse("---\ntitle: X\n---\nBody").titlePage == [TitlePageEntry(key: "title", values: ["X"])])
        #expect(MarkdownParser().parse("---\ntitle: X\nBody").titlePage.isEmpty)
    }
}
