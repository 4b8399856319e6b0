import Foundation

/// An export's bytes as text: UTF-8, with the few bytes that are not UTF-8 read instead of the
/// file being refused.
///
/// LibraryThing writes MARC-8 combining diacritics as raw bytes *before* the letter they modify
/// (`Cort` 0xE2 `azar`) in files that are otherwise UTF-8; other exports, saved again by an
/// editor, carry stray Latin-1 bytes. The two cannot be told apart byte by byte (0xE9 is "é" in
/// Latin-1 and a caron in MARC-8), so the file decides: when *every* byte of the MARC-8 mark range
/// (E0–FE) that is not UTF-8 stands before a letter it composes with (acute + a = á), the marks are
/// MARC-8; when any one does not (a Latin-1 "é" at the end of a word), every stray byte is Latin-1.
/// Bytes outside the mark range are always Latin-1. Each line with such bytes is reported as a
/// ``TextRepair``.
///
/// A file where more than one byte in twenty is not UTF-8 is not text in any encoding this reads:
/// ``CSVError/invalidUTF8(offset:)``.
enum ExportTextDecoder {
    /// A file with more bytes that are not UTF-8 than `count / maxInvalidShare` is refused.
    static let maxInvalidShare = 20
    /// MARC-8 allows several marks on one letter; more than this many in a row is not MARC-8.
    static let maxMarksPerLetter = 4

    /// The text of `body` (no byte-order mark) and the lines that needed repair.
    static func decode(_ body: ArraySlice<UInt8>) throws(CSVError) -> (text: String, repairs: [TextRepair]) {
        // Pass 1: count the bytes that are not UTF-8 and test the MARC-8 reading of the marks.
        var invalid = 0
        var firstInvalid: Int?
        var marks = 0
        var marksCompose = true
        var i = body.startIndex
        while i < body.endIndex {
            if let (_, length) = UTF8Validation.scalar(in: body, at: i) {
                i += length
                continue
            }
            if firstInvalid == nil { firstInvalid = i }
            if MARC8.combiningMark(body[i]) != nil {
                marks += 1
                if let letter = markedLetter(in: body, at: i) {
                    if !letter.composes { marksCompose = false }
                    invalid += letter.markCount
                    i += letter.markCount
                    continue
                }
                marksCompose = false
            }
            invalid += 1
            i += 1
        }
        guard let firstInvalid else { return (String(decoding: body, as: UTF8.self), []) }
        guard invalid <= body.count / maxInvalidShare else { throw .invalidUTF8(offset: firstInvalid) }

        // Pass 2: decode, reading the marks as MARC-8 only when all of them read that way.
        let readMARC8 = marks > 0 && marksCompose
        var scalars = String.UnicodeScalarView()
        scalars.reserveCapacity(body.count)
        var repaired: [Int: [TextRepair.Reading: Int]] = [:]
        var line = 1
        i = body.startIndex
        while i < body.endIndex {
            if let (scalar, length) = UTF8Validation.scalar(in: body, at: i) {
                scalars.append(scalar)
                if scalar == "\n" || (scalar == "\r" && !(i + 1 < body.endIndex && body[i + 1] == 0x0A)) { line += 1 }
                i += length
            } else if readMARC8, MARC8.combiningMark(body[i]) != nil, let letter = markedLetter(in: body, at: i) {
                scalars.append(contentsOf: letter.text)
                repaired[line, default: [:]][.marc8, default: 0] += letter.markCount
                i += letter.length
            } else {
                scalars.append(latin1(body[i]))
                repaired[line, default: [:]][.latin1, default: 0] += 1
                i += 1
            }
        }
        let repairs = repaired.keys.sorted().flatMap { line in
            [TextRepair.Reading.marc8, .latin1].compactMap { reading in
                repaired[line]?[reading].map { TextRepair(line: line, reading: reading, bytes: $0) }
            }
        }
        return (String(scalars), repairs)
    }

    /// A run of MARC-8 marks (bytes that are not UTF-8) and the letter after them.
    struct MarkedLetter {
        /// The letter with the marks, composed where Unicode has the precomposed letter.
        var text: String.UnicodeScalarView
        /// The marks' bytes.
        var markCount: Int
        /// The marks' and the letter's bytes.
        var length: Int
        /// True when the letter and its marks are one precomposed letter (or the marks are halves
        /// of a double-wide mark, which no letter carries).
        var composes: Bool
    }

    /// The marks that start at `i` and the letter after them, or `nil` when no letter follows.
    static func markedLetter(in bytes: ArraySlice<UInt8>, at i: Int) -> MarkedLetter? {
        var marks: [Unicode.Scalar] = []
        var halves = true
        var j = i
        while j < bytes.endIndex, marks.count <= maxMarksPerLetter, UTF8Validation.scalar(in: bytes, at: j) == nil,
              let mark = MARC8.combiningMark(bytes[j]) {
            marks.append(mark)
            halves = halves && MARC8.isHalfMark(bytes[j])
            j += 1
        }
        guard !marks.isEmpty, marks.count <= maxMarksPerLetter, j < bytes.endIndex,
              let (base, length) = UTF8Validation.scalar(in: bytes, at: j), base.properties.isAlphabetic
        else { return nil }
        var decomposed = String.UnicodeScalarView()
        decomposed.append(base)
        decomposed.append(contentsOf: marks)
        let composed = String(decomposed).precomposedStringWithCanonicalMapping.unicodeScalars
        return MarkedLetter(text: composed, markCount: marks.count, length: j - i + length,
                            composes: composed.count == 1 || halves)
    }

    /// The byte as Latin-1; 0x80–0x9F as windows-1252 (the WHATWG reading of "latin1"), its five
    /// unassigned bytes as the C1 controls of the same number.
    static func latin1(_ byte: UInt8) -> Unicode.Scalar {
        let windows1252: [UInt32] = [
            0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
            0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
        ]
        if (0x80...0x9F).contains(byte), let scalar = Unicode.Scalar(windows1252[Int(byte) - 0x80]) { return scalar }
        return Unicode.Scalar(byte)
    }
}
