import Foundation
import Testing
@testable import Providers

/// ``JSONValue``: strict reading that never traps, and writing that keeps numbers exact.
@Suite(.timeLimit(.minutes(1))) struct JSONValueTests {
    func parses(_ text: String) -> Bool {
        (try? JSONValue.parse(Data(text.utf8))) != nil
    }

    @Test func numbersKeepTheirLiteral() throws {
        let text = #"[0,-0,12345678901234567890,1.50,-2.5e+10,1E-400,99999999999999999999999999999999999999e999]"#
        #expect(String(decoding: try JSONValue.parse(Data(text.utf8)).encoded(), as: UTF8.self) == text)
        #expect(try JSONValue.parse(Data("42".utf8)).exactInt == 42)
        #expect(try JSONValue.parse(Data("42.0".utf8)).exactInt == nil)
        #expect(try JSONValue.parse(Data("9223372036854775808".utf8)).exactInt == nil)
    }

    @Test(arguments: ["01", "1.", ".5", "-", "1e", "+1", "0x10", "NaN", "Infinity", "1e+"])
    func numbersOutsideTheGrammarAreRefused(text: String) {
        #expect(!parses(text))
    }

    @Test func nestingIsBounded() {
        let depth = JSONValue.maxDepth
        #expect(parses(String(repeating: "[", count: depth) + String(repeating: "]", count: depth)))
        #expect(!parses(String(repeating: "[", count: depth + 1) + String(repeating: "]", count: depth + 1)))
        #expect(!parses(String(repeating: #"{"a":"#, count: 100_000)), "a deep hostile input fails without exhausting the stack")
    }

    @Test func stringsAreStrict() throws {
        #expect(try JSONValue.parse(Data(#""\ud83d\udcda \u00e9 \/ \b""#.utf8)) == .string("📚 é / \u{08}"))
        #expect(!parses(#""\ud83d""#), "a lone high surrogate")
        #expect(!parses(#""\udcda""#), "a lone low surrogate")
        #expect(!parses("\"a\u{01}b\""), "a raw control character")
        #expect(!parses(#""\x41""#))
        #expect((try? JSONValue.parse(Data([0x22, 0xC3, 0x28, 0x22]))) == nil, "invalid UTF-8")
        #expect(!parses(#""unterminated"#))
    }

    @Test func objectsRefuseDuplicatesAndTrailingText() {
        #expect(!parses(#"{"a":1,"a":2}"#))
        #expect(!parses(#"{"a":1} x"#))
        #expect(!parses(#"{"a":1,}"#))
        #expect(!parses(#"[1,]"#))
        #expect(!parses(""))
        #expect(parses(" \n{\"a\" : [ true , false , null ] }\t"))
    }

    @Test func writingEscapesWhatJSONRequiresAndSortsKeys() throws {
        let value = JSONValue.object(["b": .string("line\nquote\" back\\ tab\t \u{01} é"), "a": .array([.null, .bool(true)]), "B": .number("1")])
        let text = String(decoding: value.encoded(), as: UTF8.self)
        #expect(text == #"{"B":1,"a":[null,true],"b":"line\nquote\" back\\ tab\t \u0001 é"}"#)
        #expect(try JSONValue.parse(value.encoded()) == value)
    }
}
