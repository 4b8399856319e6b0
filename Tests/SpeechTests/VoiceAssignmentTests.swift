@testable import Speech
import Testing

@Suite(.timeLimit(.minutes(1))) struct VoiceAssignmentTests {
    @Test func pairsBecomeCharactersVoices() throws {
        #expect(try CastOverrides.characters(parsing: []) == [:])
        #expect(try CastOverrides.characters(parsing: ["ISOLDE=slt", "DEV=flite:rms"]) == ["ISOLDE": "slt", "DEV": "flite:rms"])
    }

    @Test func theVoiceMayHoldAnEqualsSignAndALaterPairWins() throws {
        #expect(try CastOverrides.characters(parsing: ["A=x=y"]) == ["A": "x=y"])
        #expect(try CastOverrides.characters(parsing: ["A=one", "A=two"]) == ["A": "two"])
    }

    @Test func aPairWithoutNameEqualsOrVoiceIsRefused() {
        for bad in ["ISOLDE", "=slt", "ISOLDE=", ""] {
            #expect(throws: VoiceAssignmentError(pair: bad)) { try CastOverrides.characters(parsing: [bad]) }
        }
        #expect(VoiceAssignmentError(pair: "X").description == "--voice takes NAME=VOICE, not 'X'")
    }
}
