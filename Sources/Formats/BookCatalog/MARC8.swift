/// MARC-8's combining diacritics: the ANSEL marks (G1 set, E0–FE) as the Library of Congress
/// MARC-8 code tables map them to Unicode. In MARC-8 a mark is written *before* the letter it
/// modifies (`Cort` E2 `azar` is "Cortázar"); in Unicode it follows.
enum MARC8 {
    /// The Unicode combining mark of an ANSEL byte, or `nil` for a byte that is not one.
    static func combiningMark(_ byte: UInt8) -> Unicode.Scalar? {
        switch byte {
        case 0xE0: "\u{0309}" // pseudo question mark: hook above
        case 0xE1: "\u{0300}" // grave
        case 0xE2: "\u{0301}" // acute
        case 0xE3: "\u{0302}" // circumflex
        case 0xE4: "\u{0303}" // tilde
        case 0xE5: "\u{0304}" // macron
        case 0xE6: "\u{0306}" // breve
        case 0xE7: "\u{0307}" // superior dot: dot above
        case 0xE8: "\u{0308}" // umlaut, diaeresis
        case 0xE9: "\u{030C}" // hacek: caron
        case 0xEA: "\u{030A}" // circle above: ring
        case 0xEB: "\u{FE20}" // ligature, first half
        case 0xEC: "\u{FE21}" // ligature, second half
        case 0xED: "\u{0315}" // high comma, off center: comma above right
        case 0xEE: "\u{030B}" // double acute
        case 0xEF: "\u{0310}" // candrabindu
        case 0xF0: "\u{0327}" // cedilla
        case 0xF1: "\u{0328}" // right hook: ogonek
        case 0xF2: "\u{0323}" // dot below
        case 0xF3: "\u{0324}" // double dot below: diaeresis below
        case 0xF4: "\u{0325}" // circle below: ring below
        case 0xF5: "\u{0333}" // double underscore
        case 0xF6: "\u{0332}" // underscore
        case 0xF7: "\u{0326}" // left hook: comma below
        case 0xF8: "\u{031C}" // right cedilla: left half ring below
        case 0xF9: "\u{032E}" // upadhmaniya: breve below
        case 0xFA: "\u{FE22}" // double tilde, first half
        case 0xFB: "\u{FE23}" // double tilde, second half
        case 0xFE: "\u{0313}" // high comma, centered: comma above
        default: nil
        }
    }

    /// The halves of the double-wide marks (ligature, double tilde): they span two letters, so no
    /// precomposed letter carries them.
    static func isHalfMark(_ byte: UInt8) -> Bool {
        byte == 0xEB || byte == 0xEC || byte == 0xFA || byte == 0xFB
    }
}
