import Testing
@testable import BookCatalog

@Suite("Match keys", .timeLimit(.minutes(1)))
struct MatchKeyTests {
    @Test func titlesFoldCasePunctuationDiacriticsAndSeries() {
        #expect(MatchKey.title("Dune (Dune, #1)") == "dune")
        #expect(MatchKey.title("The Fifth Season (The Broken Earth, #1)") == "fifth season")
        #expect(MatchKey.title("Cien años de soledad") == MatchKey.title("CIEN ANOS DE SOLEDAD"))
        #expect(MatchKey.title("Hobbit, The") == MatchKey.title("The Hobbit"))
        #expect(MatchKey.title("Ender's Game") == MatchKey.title("Enders Game"))
        #expect(MatchKey.title("Good Omens: The Nice and Accurate Prophecies") == "good omens the nice and accurate prophecies")
        // A parenthesis without a series number stays part of the title.
        #expect(MatchKey.title("Foundation (Complete)") == "foundation complete")
        // The article alone is a title, not nothing.
        #expect(MatchKey.title("The") == "the")
        #expect(MatchKey.title("Dune") != MatchKey.title("Dune Messiah"))
    }

    @Test func authorsTurnRoundAndJoinInitials() {
        #expect(MatchKey.author("Tolkien, J.R.R.") == "jrr tolkien")
        #expect(MatchKey.author("J. R. R. Tolkien") == "jrr tolkien")
        #expect(MatchKey.author("JRR Tolkien") == "jrr tolkien")
        #expect(MatchKey.author("García Márquez, Gabriel") == MatchKey.author("Gabriel Garcia Marquez"))
        #expect(MatchKey.author("Le Guin, Ursula K.") == MatchKey.author("Ursula K. Le Guin"))
        #expect(MatchKey.author("King, Jr.") == "king jr")
        #expect(MatchKey.author("Ursula K. Le Guin") != MatchKey.author("Ursula Le Guin K."))
    }

    @Test func bookKeyNeedsATitle() {
        #expect(MatchKey.book(title: "  ", author: "X") == nil)
        #expect(MatchKey.book(title: "Dune", author: nil) == "dune|")
        #expect(MatchKey.book(title: "Dune (Dune, #1)", author: "Herbert, Frank") == "dune|frank herbert")
    }

    @Test func personNamesTurnRound() {
        #expect(PersonName.turned("Butler, Octavia E.") == "Octavia E. Butler")
        #expect(PersonName.turned("Plato") == "Plato")
        #expect(PersonName.turned("King, Jr.") == "King, Jr.")
    }
}
