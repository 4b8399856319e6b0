import Testing
@testable import Screenplay

@Suite("Writers round-trip", .timeLimit(.minutes(2)))
struct RoundTripTests {
    static let fixtures = ["night-ferry.fountain", "night-ferry.fdx", "treatment.md"]

    @Test(arguments: fixtures)
    func fountainRoundTrip(_ name: String) throws {
        let doc = try ScreenplayReader.read(try fixture(name), fileName: name)
        let written = FountainWriter().write(doc)
        let again = FountainParser().parse(written)
        #expect(again.titlePage == doc.titlePage)
        #expect(again.elements.count == doc.elements.count)
        if doc.format == .fdx {
            // FDX escapes literal markup characters; compare the spoken form and structure.
            #expect(again.elements.map(\.type) == doc.elements.map(\.type))
            #expect(again.elements.map(\.plainText) == doc.elements.map(\.plainText))
        } else {
            for (a, b) in zip(again.elements, doc.elements) { #expect(a == b) }
        }
    }

    @Test(arguments: fixtures)
    func fdxRoundTrip(_ name: String) throws {
        let doc = try ScreenplayReader.read(try fixture(name), fileName: name)
        let written = FDXWriter().write(doc)
        let again = try FDXParser().parse(written)
        #expect(again.titlePage == doc.titlePage)
        #expect(again.elements.count == doc.elements.count)
        if doc.format == .fdx {
            for (a, b) in zip(again.elements, doc.elements) { #expect(a == b) }
        } else {
            #expect(again.elements.map(\.type) == doc.elements.map(\.type))
            #expect(again.elements.map(\.plainText) == doc.elements.map(\.plainText))
            #expect(again.elements.map(\.dual) == doc.elements.map(\.dual))
        }
    }

    @Test func fountainWriterForcesAmbiguousLines() {
        let doc = ScreenplayDocument(format: .fountain, elements: [
            Element(type: .action, text: "INT. LOOKS LIKE A HEADING"),
            Element(type: .action, text: "BOB"),
            Element(type: .sceneHeading, text: "THE VOID"),
            Element(type: .transition, text: "Dissolve."),
            Element(type: .character, text: "McCoy", name: "McCoy"),
            Element(type: .dialogue, text: "Line\n\nAfter gap"),
            Element(type: .action, text: "~not lyrics\n#not a section"),
            Element(type: .action, text: "Key: value looks like a title page"),
        ])
        let again = FountainParser().parse(FountainWriter().write(doc))
        var expected = doc
        expected.renumber()
        #expect(again.elements == expected.elements)
        #expect(again.titlePage.isEmpty)
    }

    @Test func leadingColonLineDoesNotBecomeTitlePage() {
        let doc = ScreenplayDocument(format: .fountain, elements: [Element(type: .action, text: "Note: the door is open.")])
        let again = FountainParser().parse(FountainWriter().write(doc))
        #expect(again.titlePage.isEmpty)
        #expect(again.elements.map(\.text) == ["Note: the door is open."])
    }
}

@Suite("Writer edge cases", .timeLimit(.minutes(2)))
struct WriterEdgeCaseTests {
    static let tricky = ScreenplayDocument(format: .fountain, titlePage: [TitlePageEntry(key: "Title", values: ["A & <B>"])], elements: [
        Element(type: .pageBreak, text: ""),
        Element(type: .pageBreak, text: ""),
        Element(type: .sceneHeading, text: "INT. \"QUOTES\" & <TAGS> - DAY", sceneNumber: "4B"),
        Element(type: .synopsis, text: "Into the summary."),
        Element(type: .synopsis, text: "A second synopsis."),
        Element(type: .character, text: "ANN", name: "ANN"),
        Element(type: .comment, text: "between cue and line"),
        Element(type: .dialogue, text: "One.\n\nTwo."),
        Element(type: .character, text: "BEN (O.S.)", name: "BEN", extension: "O.S.", dual: true),
        Element(type: .parenthetical, text: "(softly)"),
        Element(type: .dialogue, text: "Three."),
        Element(type: .sectionHeading, text: "Part", level: 1),
        Element(type: .sectionHeading, text: "Act", level: 2),
        Element(type: .boneyard, text: "hidden\n\nstuff"),
        Element(type: .action, text: "    indented\n**bold** and _under_"),
        Element(type: .pageBreak, text: ""),
    ])

    static var expected: [Element] {
        var doc = tricky
        doc.renumber()
        return doc.elements
    }

    @Test func fdxWriterEdgeCases() throws {
        let xml = FDXWriter().write(Self.tricky)
        #expect(xml.contains("<DualDialogue>"))
        #expect(xml.contains("<SceneProperties><Summary>"))
        let again = try FDXParser().parse(xml)
        #expect(again.elements == Self.expected)
        #expect(again.titlePage == Self.tricky.titlePage)
    }

    @Test func fountainWriterEdgeCases() {
        let again = FountainParser().parse(FountainWriter().write(Self.tricky))
        #expect(again.elements == Self.expected)
        #expect(again.titlePage == Self.tricky.titlePage)
    }
}
