@testable import Screenplay
import Testing

/// Identity, gender and age read from scripts written for these tests, one rule at a time.
@Suite("character profiles", .timeLimit(.minutes(2)))
struct CharacterProfilesTests {
    static func profiles(_ fountain: String) throws -> CharacterProfiles {
        CharacterProfiles(document: try ScreenplayReader.read(Array(fountain.utf8), fileName: "t.fountain"))
    }

    @Test func agePrefixesMergeIntoOnePerson() throws {
        let p = try Self.profiles("""
            INT. HOUSE - DAY

            EDWARD
            One.

            YOUNG EDWARD
            Two.

            ADULT EDWARD
            Three.

            OLD EDWARD
            Four.

            LITTLE WILL
            Five.

            WILL
            Six.

            YOUNG SANDRA
            Seven.

            OLD SANDRA
            Eight.

            LITTLE GIRL
            Nine.

            GIRL
            Ten.

            OLD MAN
            Eleven.
            """)
        #expect(["YOUNG EDWARD", "ADULT EDWARD", "OLD EDWARD"].map { p.cue($0)?.identity } == ["EDWARD", "EDWARD", "EDWARD"])
        #expect(p.cue("YOUNG EDWARD")?.ageShift == -1)
        #expect(p.cue("OLD EDWARD")?.ageShift == 1)
        #expect(p.cue("ADULT EDWARD")?.ageShift == 0)
        #expect(p.cue("LITTLE WILL")?.identity == "WILL")
        #expect(p.cue("LITTLE WILL")?.ageShift == -2)
        #expect(p.cue("YOUNG SANDRA")?.identity == "SANDRA", "two ages of one name are one person")
        #expect(p.cue("OLD SANDRA")?.identity == "SANDRA")
        #expect(p.cue("LITTLE GIRL")?.identity == "LITTLE GIRL", "a generic extra is not merged")
        #expect(p.cue("OLD MAN")?.identity == "OLD MAN")
        #expect(p.person("EDWARD")?.lines == 4)
        #expect(p.person("EDWARD")?.cues == ["EDWARD", "YOUNG EDWARD", "ADULT EDWARD", "OLD EDWARD"])
    }

    @Test func extensionsForcedCuesAndHonorifics() throws {
        let p = try Self.profiles("""
            INT. TOWER - NIGHT

            @McCLANE
            Yippee.

            MCCLANE (V.O.)
            Later.

            MCCLANE (CONT'D)
            Still me.

            MCCLANE (O.S.) (CONT'D)
            Off screen.

            HOLLY
            John.

            MRS. GENNERO
            Hello.

            GENNERO
            Hi.

            MR. TAKAGI
            Welcome.

            MRS. TAKAGI
            Thanks.

            TAKAGI
            Both of us.

            EDWARD BLOOM
            Full name.

            EDWARD
            Short name.
            """)
        #expect(p.person("MCCLANE")?.lines == 4, "V.O., CONT'D, O.S. and @ are one cue")
        #expect(p.cue("MRS. GENNERO")?.identity == "GENNERO")
        #expect(p.cue("MR. TAKAGI")?.identity == "MR. TAKAGI", "two honorifics with one name stay apart")
        #expect(p.cue("MRS. TAKAGI")?.identity == "MRS. TAKAGI")
        #expect(p.cue("EDWARD BLOOM")?.identity == "EDWARD")
        #expect(p.person("MRS. TAKAGI")?.gender == .female)
        #expect(p.person("MR. TAKAGI")?.gender == .male)
    }

    @Test func groupsAndChoruses() throws {
        let p = try Self.profiles("""
            INT. CAR - DAY

            EDWARD
            Go.

            WILL
            Now.

            EDWARD AND WILL
            Together.

            EDWARD & WILL
            Again.

            BOTH
            Yes.

            ALL
            Cheers.
            """)
        #expect(p.cue("EDWARD AND WILL")?.kind == .group)
        #expect(p.cue("EDWARD AND WILL")?.members == ["EDWARD", "WILL"])
        #expect(p.cue("EDWARD & WILL")?.members == ["EDWARD", "WILL"])
        #expect(p.cue("BOTH")?.kind == .chorus)
        #expect(p.cue("ALL")?.kind == .chorus)
        #expect(p.people.map(\.identity) == ["EDWARD", "WILL"], "groups and choruses are not people")
    }

    @Test func introductionsSayGenderAndAge() throws {
        let p = try Self.profiles("""
            INT. KITCHEN - DAY

            SANDRA (60s), his wife, sets the table. EDWARD BLOOM, 40s, a salesman, reads. JO is a girl of twelve. PAT, a twelve-year-old boy, hides. MARGOT (late 30s) waits.

            SANDRA
            Dinner.

            EDWARD
            Coming.

            JO
            Me too.

            PAT
            And me.

            MARGOT
            Fine.
            """)
        let sandra = try #require(p.person("SANDRA"))
        #expect(sandra.gender == .female)
        #expect(sandra.age == .senior)
        #expect(sandra.evidence.contains { $0.source == .introduction && $0.detail.contains("his wife") })
        #expect(p.person("EDWARD")?.age == .adult)
        #expect(p.person("JO")?.gender == .female)
        #expect(p.person("JO")?.age == .child)
        #expect(p.person("PAT")?.gender == .male)
        #expect(p.person("PAT")?.age == .child)
        #expect(p.person("MARGOT")?.age == .adult)
    }

    @Test func pronounsAfterTheNameSayGender() throws {
        let p = try Self.profiles("""
            INT. OFFICE - DAY

            Quinn opens the door. She looks tired. Quinn sits and rubs her eyes. Quinn stretches. She yawns.

            Casey reads the paper. He frowns. Casey folds it. He sighs.

            Quinn watches Casey. He ignores her.

            QUINN
            Morning.

            CASEY
            Morning.
            """)
        #expect(p.person("QUINN")?.gender == .female)
        #expect(p.person("CASEY")?.gender == .male)
        #expect(p.person("QUINN")?.evidence.contains { $0.source == .pronouns } == true)
    }

    @Test func cueWordsAndTheTitlePage() throws {
        let p = try Self.profiles("""
            Title: Cast List Test
            Cast:
                DEV - a nervous young man
                ROBIN - 70s, a retired judge, her second career

            INT. COURT - DAY

            POLICEWOMAN
            Order.

            GRANDPA JOE
            Hm.

            DEV
            Sorry.

            ROBIN
            Sit.
            """)
        #expect(p.person("POLICEWOMAN")?.gender == .female)
        #expect(p.person("GRANDPA JOE")?.gender == .male)
        #expect(p.person("GRANDPA JOE")?.age == .senior)
        #expect(p.person("DEV")?.gender == .male)
        #expect(p.person("DEV")?.evidence.contains { $0.source == .titlePage } == true)
        #expect(p.person("ROBIN")?.age == .senior)
    }

    @Test func unknownStaysUnknown() throws {
        let p = try Self.profiles("""
            INT. VOID - NIGHT

            Someone moves in the dark.

            KESTREL
            Who's there?

            ECHO
            There.
            """)
        for name in ["KESTREL", "ECHO"] {
            let person = try #require(p.person(name))
            #expect(person.gender == nil)
            #expect(person.genderConfidence == 0)
            #expect(person.age == nil)
        }
    }

    @Test func conflictingEvidenceIsNotAGuess() throws {
        let p = try Self.profiles("""
            INT. HALL - DAY

            Morgan waves. She smiles. Morgan turns. He leaves.

            MORGAN
            Bye.
            """)
        #expect(p.person("MORGAN")?.gender == nil)
    }

    @Test func firstNamesAreWeakEvidence() throws {
        let p = try Self.profiles("""
            INT. ROOM - DAY

            KATE
            Hi.

            JOE
            Hey.
            """)
        #expect(p.person("KATE")?.gender == .female)
        #expect(p.person("JOE")?.gender == .male)
        #expect((p.person("KATE")?.genderConfidence ?? 1) < 0.5)
    }

    @Test func deterministicAndPure() throws {
        let text = "INT. A - DAY\n\nANA, a woman, waits. She sighs.\n\nANA\nHi.\n\nBO\nHo.\n"
        #expect(try Self.profiles(text) == Self.profiles(text))
    }
}

extension CharacterProfilesTests {
    @Test func aNounJustBeforeTheNameIntroducesIt() throws {
        let p = try Self.profiles("""
            INT. HALL - DAY

            His mother SANDRA waits. A forty-year old man named BEAMEN waves. JOE sits with his 7 year-old son, MATTHEW.

            SANDRA
            Hi.

            BEAMEN
            Hello.

            JOE
            Hey.

            MATTHEW
            Yo.
            """)
        #expect(p.person("SANDRA")?.gender == .female)
        #expect(p.person("SANDRA")?.evidence.contains { $0.source == .introduction && $0.detail.contains("His mother") } == true)
        #expect(p.person("BEAMEN")?.gender == .male)
        #expect(p.person("MATTHEW")?.gender == .male)
        #expect(p.person("JOE")?.age == nil, "the son's age is not the father's")
    }
}

extension CharacterProfilesTests {
    @Test func aLaterOlderAgeIsThePersonsAge() throws {
        let p = try Self.profiles("""
            INT. BEDROOM - NIGHT

            WILL BLOOM, AGE 3, listens.

            WILL
            Again.

            INT. RESTAURANT - NIGHT

            WILL, now 28, sits with his bride.

            WILL
            Dad.
            """)
        #expect(p.person("WILL")?.age == .youngAdult)
        #expect(p.person("WILL")?.evidence.contains { $0.detail.hasSuffix("3, later 28") } == true)
    }
}

extension CharacterProfilesTests {
    @Test func sirAndMaamInTheReplySayTheGenderOfThePreviousSpeaker() throws {
        let p = try Self.profiles("""
            INT. OFFICE - DAY

            INTERCOM
            How are you doing?

            CLERK
            Good morning, sir.

            INT. HALL - DAY

            VISITOR
            Where is it?

            GUARD
            Down the hall, ma'am.

            CLERK
            Thank you.
            """)
        #expect(p.person("INTERCOM")?.gender == .male)
        #expect(p.person("INTERCOM")?.evidence.contains { $0.source == .address } == true)
        #expect(p.person("VISITOR")?.gender == .female)
        #expect(p.person("GUARD")?.gender == nil, "thanked by name, not addressed")
        #expect(p.person("CLERK")?.gender == nil)
    }
}
