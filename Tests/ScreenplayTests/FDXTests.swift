import Testing
@testable import Screenplay

@Suite("Final Draft FDX", .timeLimit(.minutes(2)))
struct FDXTests {
    func fdx(_ content: String, titlePage: String = "") -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<FinalDraft DocumentType=\"Script\" Version=\"5\"><Content>\(content)</Content>\(titlePage)</FinalDraft>"
    }

    func parse(_ content: String) throws -> [Element] {
        try FDXParser().parse(fdx(content)).elements
    }

    @Test func paragraphTypes() throws {
        let types = [("Scene Heading", ElementType.sceneHeading), ("Action", .action), ("Character", .character),
                     ("Dialogue", .dialogue), ("Parenthetical", .parenthetical), ("Transition", .transition),
                     ("General", .action), ("Shot", .action), ("New Act", .sectionHeading), ("End of Act", .centered),
                     ("Lyrics", .lyrics), ("Cast List", .action), ("Weird", .action)]
        for (name, type) in types {
            let els = try parse("<Paragraph Type=\"\(name)\"><Text>X</Text></Paragraph>")
            #expect(els.map(\.type) == [type], "\(name)")
        }
    }

    @Test func textRunsAndStyles() throws {
        let els = try parse("<Paragraph Type=\"Action\"><Text>A </Text><Text Style=\"Bold\">b</Text><Text Style=\"Italic\">c</Text><Text Style=\"Underline\">d</Text><Text Style=\"Bold+Italic\">e</Text><Text Style=\"AllCaps\"> f</Text></Paragraph>")
        #expect(els.first?.text == "A **b***c*_d_***e*** f")
        #expect(els.first?.plainText == "A bcde f")
    }

    @Test func sceneNumbersAndCenteredAndPageBreaks() throws {
        let els = try parse("<Paragraph Type=\"Scene Heading\" Number=\"12B\"><Text>INT. X</Text></Paragraph><Paragraph Type=\"Action\" Alignment=\"Center\" StartsNewPage=\"Yes\"><Text>MIDDLE</Text></Paragraph>")
        #expect(els.map(\.type) == [.sceneHeading, .pageBreak, .centered])
        #expect(els[0].sceneNumber == "12B")
        #expect(els[2].text == "MIDDLE")
    }

    @Test func dualDialogueMarksSecondCharacter() throws {
        let els = try parse("<DualDialogue><Paragraph Type=\"Character\"><Text>A</Text></Paragraph><Paragraph Type=\"Dialogue\"><Text>x</Text></Paragraph><Paragraph Type=\"Character\"><Text>B (O.S.)</Text></Paragraph><Paragraph Type=\"Dialogue\"><Text>y</Text></Paragraph></DualDialogue><Paragraph Type=\"Character\"><Text>C</Text></Paragraph>")
        #expect(els.filter { $0.type == .character }.map(\.dual) == [nil, true, nil])
        #expect(els[2].name == "B")
        #expect(els[2].extension == "O.S.")
    }

    @Test func summaryAndScriptNote() throws {
        let els = try parse("<Paragraph Type=\"Scene Heading\"><SceneProperties><Summary><Paragraph><Text>Sum.</Text></Paragraph></Summary></SceneProperties><Text>EXT. Y</Text></Paragraph><Paragraph Type=\"Action\"><Text>Act.</Text><ScriptNote><Paragraph><Text>Note.</Text></Paragraph></ScriptNote></Paragraph>")
        #expect(els.map { "\($0.type.rawValue):\($0.text)" } == ["sceneHeading:EXT. Y", "synopsis:Sum.", "action:Act.", "comment:Note."])
    }

    @Test func titlePageKeysFromTitleKeyAttribute() throws {
        let doc = try FDXParser().parse(fdx("", titlePage: "<TitlePage><Content><Paragraph TitleKey=\"Draft date\"><Text>May</Text></Paragraph></Content></TitlePage>"))
        #expect(doc.titlePage == [TitlePageEntry(key: "Draft date", values: ["May"])])
    }

    @Test func doctypeIsRejected() {
        let laughs = """
        <?xml version="1.0"?>
        <!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
        <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
        <FinalDraft><Content><Paragraph Type="Action"><Text>&lol3;</Text></Paragraph></Content></FinalDraft>
        """
        #expect(throws: ScreenplayError.xmlDoctypeNotAllowed) { try FDXParser().parse(laughs) }
        let external = "<?xml version=\"1.0\"?><!doctype x SYSTEM \"file:///etc/passwd\"><FinalDraft/>"
        #expect(throws: ScreenplayError.xmlDoctypeNotAllowed) { try FDXParser().parse(external) }
    }

    @Test func undeclaredEntityIsMalformed() {
        #expect {
            try FDXParser().parse(fdx("<Paragraph Type=\"Action\"><Text>&xxe;</Text></Paragraph>"))
        } throws: { error in
            if case .malformedXML = error as? ScreenplayError { return true }
            return false
        }
    }

    @Test func truncatedXMLIsMalformed() {
        let text = fdx("<Paragraph Type=\"Action\"><Text>Cut off")
        let truncated = String(text.prefix(text.count - 30))
        #expect {
            try FDXParser().parse(truncated)
        } throws: { error in
            if case .malformedXML = error as? ScreenplayError { return true }
            return false
        }
    }

    @Test func wrongRootIsNotFinalDraft() {
        #expect(throws: ScreenplayError.notFinalDraft(root: "html")) { try FDXParser().parse("<html><body/></html>") }
    }

    @Test func deepNestingIsRejected() {
        let deep = "<FinalDraft>" + String(repeating: "<a>", count: 300) + String(repeating: "</a>", count: 300) + "</FinalDraft>"
        #expect(throws: ScreenplayError.self) { try FDXParser().parse(deep) }
    }
}
