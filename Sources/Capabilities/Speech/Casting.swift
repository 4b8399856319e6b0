import Screenplay

/// One run of ``CastingDirector``'s rules over a script's profiles (see there). Internal: the
/// state of a casting, kept in arrays so iteration order is the script's and the pools'.
struct Casting {
    /// A voice casting may choose, with its traits and its position in the pools (the tie-break).
    struct Candidate {
        var provider: String
        var voice: Voice
        var traits: VoiceTraits
        var order: Int
        var reference: String { provider + ":" + voice.id }
    }

    let pools: [VoicePool]
    let candidates: [Candidate]
    let profiles: CharacterProfiles
    var narrator = CastRole(provider: "", voice: "")

    init(pools: [VoicePool], castFrom: Int, profiles: CharacterProfiles) {
        self.pools = pools
        self.profiles = profiles
        var candidates: [Candidate] = []
        for pool in pools.prefix(castFrom) {
            for voice in pool.voices {
                var labelled = voice
                labelled.provider = pool.provider
                let traits = VoiceMetadata.traits(of: labelled)
                if traits.castable {
                    candidates.append(Candidate(provider: pool.provider, voice: labelled, traits: traits, order: candidates.count))
                }
            }
        }
        self.candidates = candidates
    }

    /// A cast-file value (`voice` or `provider:voice`) checked against the pools.
    func resolve(_ value: String, defaultProvider: String) throws(SpeechError) -> CastRole {
        let reference = CastOverrides.reference(value, providers: pools.map(\.provider))
        let provider = reference.provider ?? defaultProvider
        guard let pool = pools.first(where: { $0.provider == provider }) else { throw .unknownProvider(provider) }
        guard pool.voices.contains(where: { $0.id == reference.voice }) else { throw .unknownVoice(reference.voice, provider: provider) }
        return CastRole(provider: provider, voice: reference.voice)
    }

    func traits(of role: CastRole) -> VoiceTraits {
        let voice = pools.first { $0.provider == role.provider }?.voices.first { $0.id == role.voice }
        return VoiceMetadata.traits(provider: role.provider, id: role.voice, fallback: voice)
    }

    /// What was decided for one person.
    struct Decision {
        var role: CastRole
        var tier: CastProposal.Tier
        var reason: String
    }

    /// Casts every cue; `fixed` are the cast file's choices by normalized name.
    func run(fixed: [String: CastRole]) -> [CastProposal.Choice] {
        let people = profiles.people.sorted { ($1.lines, $0.identity) < ($0.lines, $1.identity) }
        var decisions: [String: Decision] = [:]
        var holders: [String: [CharacterProfiles.Person]] = [:]  // voice reference → people cast with it
        let narratorReference = narrator.reference

        func record(_ person: CharacterProfiles.Person, _ decision: Decision) {
            decisions[person.identity] = decision
            holders[decision.role.reference, default: []].append(person)
        }
        func conflicts(_ reference: String, _ person: CharacterProfiles.Person) -> Int {
            (holders[reference] ?? []).filter { !Set($0.scenes).isDisjoint(with: person.scenes) }.count
        }

        // The cast file first: a person named, or its main cue named.
        var open: [CharacterProfiles.Person] = []
        for person in people {
            let main = person.cues.first { profiles.cue($0)?.ageShift == 0 && fixed[$0] != nil }
            if let role = fixed[person.identity] ?? main.flatMap({ fixed[$0] }) {
                record(person, Decision(role: role, tier: .castFile, reason: "named in the cast file"))
            } else {
                open.append(person)
            }
        }

        // Leads: farthest from the narrator and the leads before them, natural voices first.
        var chosen: [(traits: VoiceTraits, provider: String)] = [(traits(of: narrator), narrator.provider)]
        var minors: [CharacterProfiles.Person] = []
        var leadCount = 0
        for (rank, person) in open.enumerated() {
            guard leadCount < CastingDirector.maximumLeads, rank < 3 || person.lines >= CastingDirector.leadLines else {
                minors.append(person)
                continue
            }
            let gendered = matching(person.gender).filter { $0.reference != narratorReference }
            var options = gendered.filter { holders[$0.reference] == nil }
            if options.isEmpty { options = gendered.filter { conflicts($0.reference, person) == 0 } }
            if options.isEmpty { options = gendered }
            guard !options.isEmpty else {
                record(person, Decision(role: narrator, tier: .lead, reason: "no castable voice: the narrator's"))
                continue
            }
            options = Self.naturalFirst(options)
            func score(_ c: Candidate) -> Double {
                let apart = chosen.map { c.traits.distance(to: $0.traits, sameProvider: c.provider == $0.provider) }.min() ?? 0
                return apart + (person.age == nil ? 0 : c.traits.suits(person.age) ? 1 : -1) - 3 * Double(conflicts(c.reference, person))
            }
            var best = options[0]
            var bestScore = score(best)
            for option in options.dropFirst() {
                let s = score(option)
                if s > bestScore { best = option; bestScore = s }
            }
            leadCount += 1
            chosen.append((best.traits, best.provider))
            let (role, apart) = Self.role(best, sharedWith: conflicts(best.reference, person))
            record(person, Decision(role: role, tier: .lead,
                                    reason: "lead \(leadCount): \(Self.describe(person.gender))\(best.traits.natural ? " natural" : "") voice farthest from the narrator and the leads before"
                                        + (person.age.map { best.traits.suits($0) ? ", suits \($0.rawValue)" : "" } ?? "") + apart))
        }

        // Minor characters: a voice of their own while one of their gender is unused (natural
        // first, then suiting their age, then farthest from their scene partners' voices); once
        // every such voice is taken, the one their scene partners use least.
        for person in minors {
            let gendered = matching(person.gender).filter { $0.reference != narratorReference }
            guard !gendered.isEmpty else {
                record(person, Decision(role: narrator, tier: .minor, reason: "no castable voice: the narrator's"))
                continue
            }
            let unused = Self.naturalFirst(gendered.filter { holders[$0.reference] == nil })
            if !unused.isEmpty {
                // The voices of the people it shares a scene with, and the narrator's.
                var anchors: [(traits: VoiceTraits, provider: String)] = [(traits(of: narrator), narrator.provider)]
                for (reference, people) in holders where people.contains(where: { !Set($0.scenes).isDisjoint(with: person.scenes) }) {
                    if let role = people.lazy.compactMap({ decisions[$0.identity]?.role }).first(where: { $0.reference == reference }) {
                        anchors.append((traits(of: role), role.provider))
                    }
                }
                var best = unused[0]
                var bestKey = (Int.max, -Double.infinity)
                for c in unused {
                    let apart = anchors.map { c.traits.distance(to: $0.traits, sameProvider: c.provider == $0.provider) }.min() ?? 0
                    let key = (c.traits.suits(person.age) ? 0 : 1, apart)
                    if key.0 < bestKey.0 || (key.0 == bestKey.0 && key.1 > bestKey.1) { best = c; bestKey = key }
                }
                record(person, Decision(role: CastRole(provider: best.provider, voice: best.voice.id), tier: .minor,
                                        reason: "minor: an unused \(Self.describe(person.gender))\(best.traits.natural ? " natural" : "") voice, "
                                            + "farthest from its scene partners' voices"))
                continue
            }
            var best = gendered[0]
            var bestKey = (Int.max, Int.max, Int.max, Int.max)
            for c in gendered {
                let key = (conflicts(c.reference, person), c.traits.suits(person.age) ? 0 : 1, holders[c.reference]?.count ?? 0, c.order)
                if key < bestKey { best = c; bestKey = key }
            }
            let (role, apart) = Self.role(best, sharedWith: bestKey.0)
            record(person, Decision(role: role, tier: .minor,
                                    reason: "minor: every \(Self.describe(person.gender)) voice is taken; shares the one its scene partners use least"
                                        + " (\(bestKey.2) other\(bestKey.2 == 1 ? "" : "s") have it)\(apart)"))
        }

        return choices(people: people, decisions: decisions, fixed: fixed)
    }

    /// The natural candidates of `options` when there are any, else all of them (order kept).
    static func naturalFirst(_ options: [Candidate]) -> [Candidate] {
        let natural = options.filter(\.traits.natural)
        return natural.isEmpty ? options : natural
    }

    /// Candidates of `gender` (neutral ones for an unknown gender), in pool order; every
    /// candidate when the pools have no voice of that gender.
    func matching(_ gender: Gender?) -> [Candidate] {
        let exact = candidates.filter { $0.traits.gender == gender }
        return exact.isEmpty ? candidates : exact
    }

    /// The narrator when the overrides name none: the first pool's first voice when it is natural
    /// or the casting pools have no natural voice; else the first natural voice of the first pool,
    /// else of the others, in pool order.
    func defaultNarrator(_ main: VoicePool) -> CastRole? {
        guard let first = main.voices.first else { return nil }
        var labelled = first
        labelled.provider = main.provider
        let natural = candidates.filter(\.traits.natural)
        guard !VoiceMetadata.traits(of: labelled).natural, !natural.isEmpty else { return CastRole(provider: main.provider, voice: first.id) }
        let pick = natural.first { $0.provider == main.provider } ?? natural[0]
        return CastRole(provider: pick.provider, voice: pick.voice.id)
    }

    /// One choice per cue: people in casting order with their cues, then groups and choruses.
    func choices(people: [CharacterProfiles.Person], decisions: [String: Decision], fixed: [String: CastRole]) -> [CastProposal.Choice] {
        var out: [CastProposal.Choice] = []
        for person in people {
            guard let decision = decisions[person.identity] else { continue }
            let main = person.cues.filter { profiles.cue($0)?.ageShift == 0 }
                .max { (profiles.cue($0)?.lines ?? 0, $1) < (profiles.cue($1)?.lines ?? 0, $0) } ?? person.cues.first
            for name in person.cues {
                guard let cue = profiles.cue(name) else { continue }
                var role = fixed[name] ?? decision.role
                var tier: CastProposal.Tier = fixed[name] != nil ? .castFile : name == main ? decision.tier : .sameIdentity
                var reason = fixed[name] != nil ? "named in the cast file" : name == main ? decision.reason : "\(person.identity)'s voice"
                if role.voice == decision.role.voice, role.provider == decision.role.provider,
                   let age = CastingDirector.ageOptions(shift: cue.ageShift) {
                    let options = Self.combined(decision.role.options, age)
                    role.options = options
                    reason += cue.ageShift < 0 ? ", younger" : ", older"
                    reason += " (speed \(options.speed), pitch \(options.pitch ?? 50))"
                    if tier == .castFile, fixed[name] == nil { tier = .sameIdentity }
                }
                out.append(choice(cue, person: person, role: role, tier: tier, reason: reason))
            }
        }
        for cue in profiles.cues where cue.kind != .person {
            if let role = fixed[cue.name] {
                out.append(choice(cue, person: nil, role: role, tier: .castFile, reason: "named in the cast file"))
            } else if cue.kind == .group, let member = cue.members.first(where: { decisions[$0] != nil }), let decision = decisions[member] {
                out.append(choice(cue, person: nil, role: decision.role, tier: .group,
                                  reason: "group (\(cue.members.joined(separator: ", "))): spoken with \(member)'s voice"))
            } else {
                out.append(choice(cue, person: nil, role: narrator, tier: .chorus, reason: "no one in particular: the narrator's voice"))
            }
        }
        return out
    }

    func choice(_ cue: CharacterProfiles.Cue, person: CharacterProfiles.Person?, role: CastRole, tier: CastProposal.Tier,
                reason: String) -> CastProposal.Choice {
        CastProposal.Choice(name: cue.name, identity: cue.identity, kind: cue.kind, lines: cue.lines, provider: role.provider,
                            voice: role.voice, options: role.options, gender: person?.gender,
                            genderConfidence: person?.genderConfidence ?? 0, age: cue.age ?? person?.age,
                            voiceGender: traits(of: role).gender, tier: tier, reason: reason,
                            evidence: person.map { $0.evidence } ?? cue.evidence)
    }

    static func describe(_ gender: Gender?) -> String { gender?.rawValue ?? "unknown-gender (any)" }

    /// Pitch offsets (espeak-ng units, 50 = the voice's own) for the second, third… person who must
    /// share a voice with a scene partner: the pool has no other voice of their gender (flite has
    /// one woman's voice), so they are pitched apart rather than given a voice of the other gender.
    static let pitchesApart = [10, -10, 18, -18]

    /// The role for `candidate` when `partners` people it shares scenes with already have its voice,
    /// and what to add to the reason.
    static func role(_ candidate: Candidate, sharedWith partners: Int) -> (CastRole, String) {
        guard partners > 0 else { return (CastRole(provider: candidate.provider, voice: candidate.voice.id), "") }
        let pitch = 50 + pitchesApart[(partners - 1) % pitchesApart.count]
        return (CastRole(provider: candidate.provider, voice: candidate.voice.id, options: SynthesisOptions(pitch: pitch)),
                "; a scene partner has this voice too (no other fits), so pitched apart (pitch \(pitch))")
    }

    /// A role's own options with a cue's age adjustment on top (speeds multiply, pitch offsets add).
    static func combined(_ base: SynthesisOptions?, _ age: SynthesisOptions) -> SynthesisOptions {
        guard let base else { return age }
        var out = age
        out.speed = ((base.speed * age.speed) * 100).rounded() / 100
        out.pitch = max(5, min(95, (base.pitch ?? 50) + (age.pitch ?? 50) - 50))
        return out
    }
}
