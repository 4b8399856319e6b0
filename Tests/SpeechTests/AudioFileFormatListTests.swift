@testable import Speech
import Testing

@Suite(.timeLimit(.minutes(1))) struct AudioFileFormatListTests {
    @Test func namesParseInOrderIgnoringCaseAndSpaces() throws {
        #expect(try AudioFileFormat.list(parsing: "wav") == [.wav])
        #expect(try AudioFileFormat.list(parsing: "wav, MP3 ,m4b") == [.wav, .mp3, .m4b])
    }

    @Test func anUnknownNameIsRefusedByName() {
        #expect(throws: UnknownAudioFileFormat(name: "ogg")) { try AudioFileFormat.list(parsing: "wav,ogg") }
        #expect(UnknownAudioFileFormat(name: "ogg").description == "unknown format 'ogg' in --formats (wav, mp3, m4b)")
    }
}
