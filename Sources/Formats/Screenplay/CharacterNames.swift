/// First names usually given to one gender, for weak evidence when the script says nothing
/// clearer. Names commonly given to both (Alex, Sam, Jordan, Chris, Robin…) are left out.
extension CharacterLexicon {
    static let femaleNames: Set<String> = [
        "ABIGAIL", "ADA", "AGNES", "ALICE", "ALICIA", "AMANDA", "AMELIA", "AMY", "ANGELA", "ANN", "ANNA", "ANNE", "ANNIE",
        "AUDREY", "BARBARA", "BEATRICE", "BELLA", "BETH", "BETTY", "BRENDA", "BRIDGET", "CAROL", "CAROLINE", "CATHERINE",
        "CHARLOTTE", "CHLOE", "CLAIRE", "CLARA", "CYNTHIA", "DAISY", "DEBORAH", "DIANA", "DIANE", "DONNA", "DORIS",
        "DOROTHY", "EDITH", "ELEANOR", "ELIZABETH", "ELLA", "ELLEN", "ELSA", "EMILY", "EMMA", "ESTHER", "EVA", "EVE",
        "EVELYN", "FIONA", "FRANCES", "GEORGIA", "GINA", "GLORIA", "GRACE", "HANNAH", "HARRIET", "HAZEL", "HEATHER",
        "HELEN", "HOLLY", "IRENE", "ISABEL", "ISABELLA", "ISOLDE", "IVY", "JANE", "JANET", "JENNIFER", "JENNY", "JESSICA",
        "JILL", "JOAN", "JOSEPHINE", "JOY", "JUDITH", "JUDY", "JULIA", "JULIE", "JUNE", "KAREN", "KATE", "KATHERINE",
        "KATHY", "KATIE", "LAURA", "LILY", "LINDA", "LISA", "LOIS", "LUCY", "LYDIA", "MAGGIE", "MARGARET", "MARGOT",
        "MARIA", "MARIE", "MARTHA", "MARY", "MAUDE", "MEG", "MEGAN", "MELISSA", "MILDRED", "MIRANDA", "MOLLY", "MONICA",
        "NANCY", "NAOMI", "NATALIE", "NINA", "NORA", "OLIVIA", "PAMELA", "PATRICIA", "PEGGY", "PENNY", "PHOEBE", "POLLY",
        "RACHEL", "REBECCA", "ROSA", "ROSE", "RUTH", "RUTHIE", "SALLY", "SAMANTHA", "SANDRA", "SARA", "SARAH", "SHIRLEY",
        "SOPHIA", "SOPHIE", "STELLA", "SUE", "SUSAN", "SYLVIA", "TERESA", "TINA", "VALERIE", "VERA", "VICTORIA",
        "VIOLET", "VIRGINIA", "WENDY", "ZOE",
    ]
    static let maleNames: Set<String> = [
        "AARON", "ADAM", "ALAN", "ALBERT", "ALFRED", "AMOS", "ANDREW", "ANTHONY", "ARTHUR", "BEN", "BENJAMIN", "BERNARD",
        "BILL", "BOB", "BOBBY", "BRIAN", "BRUCE", "CARL", "CHARLES", "CLARK", "DANIEL", "DAN", "DANNY", "DAVE", "DAVID",
        "DENNIS", "DICK", "DON", "DONALD", "DOUG", "DOUGLAS", "EARL", "ED", "EDDIE", "EDGAR", "EDWARD", "ERIC", "ERNEST",
        "EUGENE", "FRANK", "FRED", "FREDERICK", "GARY", "GEORGE", "GERALD", "GORDON", "GREG", "HANK", "HAROLD", "HARRY",
        "HENRY", "HERBERT", "HOWARD", "HUGH", "IAN", "ISAAC", "JACK", "JACOB", "JAKE", "JAMES", "JASON", "JEFF", "JEREMY",
        "JERRY", "JIM", "JIMMY", "JOE", "JOHN", "JOHNNY", "JONATHAN", "JOSEPH", "KARL", "KEITH", "KEN", "KENNY", "KEVIN",
        "LARRY", "LEO", "LEONARD", "LOUIS", "LUKE", "MARK", "MARKE", "MARTIN", "MATT", "MATTHEW", "MICHAEL", "MIKE",
        "NATHAN", "NEIL", "NICHOLAS", "NICK", "NORMAN", "OLIVER", "OSCAR", "PATRICK", "PAUL", "PETER", "PHIL", "PHILIP",
        "RALPH", "RAY", "RAYMOND", "RICHARD", "RICK", "ROBERT", "ROGER", "RON", "RONALD", "ROY", "RUSSELL", "SAMUEL",
        "SCOTT", "SEAN", "SIMON", "STANLEY", "STEPHEN", "STEVE", "STEVEN", "TED", "THOMAS", "TIM", "TIMOTHY", "TOM",
        "TOMMY", "TONY", "TRISTAN", "VICTOR", "VINCENT", "WALTER", "WAYNE", "WILL", "WILLIAM", "WILBUR", "ZACK", "ZACKY",
    ]

    /// The first name of `identity` (after an honorific) when it is in one of the lists.
    static func firstName(of identity: String) -> (word: String, gender: Gender)? {
        let words = identity.split(separator: " ").map(String.init)
        guard let first = words.first(where: { honorifics[$0] == nil }) else { return nil }
        if femaleNames.contains(first) { return (first.capitalized, .female) }
        if maleNames.contains(first) { return (first.capitalized, .male) }
        return nil
    }
}
