/// Text from outside (a job's error, a book's title from an export or a book service) made safe to
/// print on a terminal: an escape sequence in it could move the cursor, rewrite earlier lines, set
/// the window title, or (OSC 52) write the clipboard.
public enum TerminalSafe {
    /// `text` without terminal control: escape sequences (CSI `ESC [ … final`, OSC `ESC ] … BEL|ST`,
    /// DCS, SOS, PM, APC strings up to ST, two- and three-character `ESC` sequences), their 8-bit C1
    /// forms (U+0080–U+009F), and every other C0 control and DEL are removed. Newline and tab stay.
    public static func clean(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            switch scalar.value {
            case 0x0A, 0x09:
                out.append(scalar)
            case 0x1B:
                guard let next = scalars.next() else { break }
                switch next.value {
                case 0x5B: skipCSI(&scalars)                     // [
                case 0x5D: skipString(&scalars, bellEnds: true)  // ]
                case 0x50, 0x58, 0x5E, 0x5F: skipString(&scalars, bellEnds: false)  // P X ^ _
                case 0x20...0x2F: skipEscapeIntermediates(&scalars)
                default: break  // ESC and one character (ESC 7, ESC c, …)
                }
            case 0x9B: skipCSI(&scalars)
            case 0x9D: skipString(&scalars, bellEnds: true)
            case 0x90, 0x98, 0x9E, 0x9F: skipString(&scalars, bellEnds: false)
            default:
                if !isControl(scalar) { out.append(scalar) }
            }
        }
        return String(out)
    }

    /// A C0 control other than newline and tab, DEL, or a C1 control: what ``clean(_:)`` removes.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: false
        case 0x00..<0x20, 0x7F...0x9F: true
        default: false
        }
    }

    /// Parameters and intermediates (0x20–0x3F) up to the final character (0x40–0x7E), which goes
    /// too; anything else ends the sequence and is dropped with it.
    private static func skipCSI(_ scalars: inout String.UnicodeScalarView.Iterator) {
        while let scalar = scalars.next(), (0x20...0x3F).contains(scalar.value) {}
    }

    /// A control string up to its string terminator (`ESC \` or 8-bit ST), or BEL for OSC.
    private static func skipString(_ scalars: inout String.UnicodeScalarView.Iterator, bellEnds: Bool) {
        while let scalar = scalars.next() {
            switch scalar.value {
            case 0x9C: return
            case 0x07 where bellEnds: return
            case 0x1B:
                // ESC \ ends it; ESC and anything else ends it too (a terminal aborts the string).
                _ = scalars.next()
                return
            default: continue
            }
        }
    }

    /// `ESC` intermediates (0x20–0x2F) then one final character (`ESC ( B`, `ESC # 8`).
    private static func skipEscapeIntermediates(_ scalars: inout String.UnicodeScalarView.Iterator) {
        while let scalar = scalars.next(), (0x20...0x2F).contains(scalar.value) {}
    }
}
