import TextEscaping

/// Writes a document as Final Draft XML such that ``FDXParser`` reads back the same elements.
///
/// Emphasis markup becomes `Style` runs; centered text is an Action paragraph with
/// `Alignment="Center"`; a page break sets `StartsNewPage="Yes"` on the next paragraph; a
/// synopsis right after a scene heading goes into its `SceneProperties/Summary`; notes are
/// `ScriptNote`s and boneyard a `ScriptNote Kind="Boneyard"`; dual dialogue is a `<DualDialogue>`
/// inside a `General` paragraph, as Final Draft writes it. Element types Final Draft lacks
/// use Reparto paragraph types: `Section` (with `Level`) and `Synopsis`; level-2 sections
/// are `New Act`. Title-page entries carry a `TitleKey` attribute. Characters XML 1.0 cannot
/// represent (C0 controls other than tab, LF, CR; U+FFFE; U+FFFF) are dropped.
public struct FDXWriter: Sendable {
    /// Creates a writer.
    public init() {}

    /// Returns FDX text for `document`.
    public func write(_ document: ScreenplayDocument) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\" ?>\n"
        out += "<FinalDraft DocumentType=\"Script\" Template=\"No\" Version=\"5\">\n  <Content>\n"
        let elements = document.elements
        var pendingPageBreak = false
        var k = 0
        var dualOpen = false
        while k < elements.count {
            let e = elements[k]
            if e.type == .pageBreak {
                if pendingPageBreak { out += paragraph(type: "Action", attributes: [("StartsNewPage", "Yes")], body: "") }
                pendingPageBreak = true
                k += 1
                continue
            }
            // Dual dialogue: wrap the previous cue's block and this one.
            // Final Draft's shape: a typeless-or-General paragraph holding the <DualDialogue>.
            if e.type == .character && e.dual != true && dualPairEnd(elements, from: k) != nil {
                out += "    <Paragraph Type=\"General\"\(pendingPageBreak ? " StartsNewPage=\"Yes\"" : "")>\n      <DualDialogue>\n"
                pendingPageBreak = false
                dualOpen = true
            }
            var attributes: [(String, String)] = []
            if pendingPageBreak { attributes.append(("StartsNewPage", "Yes")); pendingPageBreak = false }
            switch e.type {
            case .sceneHeading:
                if let n = e.sceneNumber { attributes.append(("Number", n)) }
                var inner = ""
                if k + 1 < elements.count && elements[k + 1].type == .synopsis {
                    inner = "<SceneProperties><Summary>" + textParagraphs(elements[k + 1].text) + "</Summary></SceneProperties>"
                    k += 1
                }
                out += paragraph(type: "Scene Heading", attributes: attributes, body: inner + runs(e.text))
            case .action: out += paragraph(type: "Action", attributes: attributes, body: runs(e.text))
            case .character: out += paragraph(type: "Character", attributes: attributes, body: runs(e.text.isEmpty ? e.name ?? "" : e.text))
            case .dialogue: out += paragraph(type: "Dialogue", attributes: attributes, body: runs(e.text))
            case .parenthetical: out += paragraph(type: "Parenthetical", attributes: attributes, body: runs(e.text))
            case .transition: out += paragraph(type: "Transition", attributes: attributes, body: runs(e.text))
            case .lyrics: out += paragraph(type: "Lyrics", attributes: attributes, body: runs(e.text))
            case .centered:
                out += paragraph(type: "Action", attributes: attributes + [("Alignment", "Center")], body: runs(e.text))
            case .sectionHeading:
                if e.level == 2 {
                    out += paragraph(type: "New Act", attributes: attributes, body: runs(e.text))
                } else {
                    out += paragraph(type: "Section", attributes: attributes + [("Level", String(e.level ?? 1))], body: runs(e.text))
                }
            case .synopsis: out += paragraph(type: "Synopsis", attributes: attributes, body: runs(e.text))
            case .comment:
                out += paragraph(type: "Action", attributes: attributes,
                                 body: "<ScriptNote>" + textParagraphs(e.text) + "</ScriptNote>")
            case .boneyard:
                out += paragraph(type: "Action", attributes: attributes,
                                 body: "<ScriptNote Kind=\"Boneyard\">" + textParagraphs(e.text) + "</ScriptNote>")
            case .pageBreak: break
            }
            k += 1
            if dualOpen && !(k < elements.count && (Self.continuesSpeech(elements[k].type)
                                                     || (elements[k].type == .character && elements[k].dual == true))) {
                out += "      </DualDialogue>\n    </Paragraph>\n"
                dualOpen = false
            }
        }
        if pendingPageBreak { out += paragraph(type: "Action", attributes: [("StartsNewPage", "Yes")], body: "") }
        out += "  </Content>\n"
        if !document.titlePage.isEmpty {
            out += "  <TitlePage>\n    <Content>\n"
            for (i, entry) in document.titlePage.enumerated() {
                if i > 0 { out += "      <Paragraph Alignment=\"Center\"></Paragraph>\n" }
                let align = ["contact", "address", "copyright", "draft date", "phone", "email"]
                    .contains(entry.key.lowercased()) ? "Left" : "Center"
                if entry.values.isEmpty {
                    out += "      <Paragraph Alignment=\"\(align)\" TitleKey=\"\(escape(entry.key))\"></Paragraph>\n"
                }
                for (j, v) in entry.values.enumerated() {
                    let key = j == 0 ? " TitleKey=\"\(escape(entry.key))\"" : ""
                    out += "      <Paragraph Alignment=\"\(align)\"\(key)>\(runs(v))</Paragraph>\n"
                }
            }
            out += "    </Content>\n  </TitlePage>\n"
        }
        out += "</FinalDraft>\n"
        return out
    }

    /// If the cue at `k` is followed (after its block) by a dual cue, the index after the pair.
    func dualPairEnd(_ elements: [Element], from k: Int) -> Int? {
        var j = k + 1
        while j < elements.count && Self.continuesSpeech(elements[j].type) { j += 1 }
        guard j < elements.count, elements[j].type == .character, elements[j].dual == true else { return nil }
        return j
    }

    /// Elements that belong to the speech block of the preceding cue.
    static func continuesSpeech(_ type: ElementType) -> Bool {
        type == .parenthetical || type == .dialogue || type == .comment || type == .boneyard
    }

    func paragraph(type: String, attributes: [(String, String)], body: String) -> String {
        var s = "    <Paragraph Type=\"\(type)\""
        for (name, value) in attributes { s += " \(name)=\"\(escape(value))\"" }
        return s + ">" + body + "</Paragraph>\n"
    }

    func textParagraphs(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { "<Paragraph>" + runs(String($0)) + "</Paragraph>" }.joined()
    }

    func runs(_ text: String) -> String {
        Emphasis.runs(text).map { run in
            var styles: [String] = []
            if run.bold { styles.append("Bold") }
            if run.italic { styles.append("Italic") }
            if run.underline { styles.append("Underline") }
            let style = styles.isEmpty ? "" : " Style=\"\(styles.joined(separator: "+"))\""
            return "<Text\(style)>\(escape(run.text))</Text>"
        }.joined()
    }

    func escape(_ s: String) -> String { XMLText.escape(s) }
}
