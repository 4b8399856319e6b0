import Testing
@testable import Screenplay

@Suite("Emphasis", .timeLimit(.minutes(2)))
struct EmphasisTests {
    @Test(arguments: [
        ("*italic*", "italic"), ("**bold**", "bold"), ("***both***", "both"), ("_under_", "under"),
        ("**bold *italic* bold**", "bold italic bold"), ("_**title**_", "title"),
        ("5 * 3 = 15", "5 * 3 = 15"), ("snake_case", "snake_case"), ("\\*literal\\*", "*literal*"),
        ("back\\\\slash", "back\\slash"), ("trailing\\", "trailing\\"), ("plain text", "plain text"),
        ("*a*\n*b*", "a\nb"), ("*open\nclose*", "*open\nclose*"),
    ])
    func strip(_ input: String, _ expected: String) {
        #expect(Emphasis.strip(input) == expected)
    }

    @Test func plainTextUsesStrip() {
        #expect(Element(type: .dialogue, text: "I *never* said _that_.").plainText == "I never said that.")
    }

    @Test func runs() {
        let runs = Emphasis.runs("a **b** *c* ***d*** _e_")
        #expect(runs == [
            Emphasis.Run(text: "a "), Emphasis.Run(text: "b", bold: true), Emphasis.Run(text: " "),
            Emphasis.Run(text: "c", italic: true), Emphasis.Run(text: " "),
            Emphasis.Run(text: "d", bold: true, italic: true), Emphasis.Run(text: " "),
            Emphasis.Run(text: "e", underline: true),
        ])
    }

    @Test func markupEscapesAndWraps() {
        #expect(Emphasis.markup(Emphasis.Run(text: " x*y ", bold: true, underline: true)) == " _**x\\*y**_ ")
        #expect(Emphasis.markup(Emphasis.Run(text: "a_b")) == "a\\_b")
    }

    @Test func markupThenRunsRoundTrips() {
        let run = Emphasis.Run(text: "Storm *coming*", bold: true, italic: true, underline: true)
        #expect(Emphasis.runs(Emphasis.markup(run)) == [run])
    }
}
