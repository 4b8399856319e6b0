#!/usr/bin/env python3
"""Deterministic generator for a feature-length Fountain script (about 150 KB).

All text is assembled from word lists written for Reparto; no copyrighted material.
Usage: generate.py [OUTPUT] [--target-bytes N] [--seed S]
"""
import argparse
import random

PLACES = ["HARBOUR", "FERRY CABIN", "ENGINE ROOM", "LIGHTHOUSE", "FISH MARKET", "CUSTOMS OFFICE",
          "HOTEL LOBBY", "TRAIN PLATFORM", "ROOFTOP", "CHAPEL", "BOATYARD", "RADIO SHACK",
          "POLICE STATION", "BAKERY", "CLIFF PATH", "LIBRARY", "CAR PARK", "SHIPPING OFFICE"]
TIMES = ["DAY", "NIGHT", "DAWN", "DUSK", "CONTINUOUS", "LATER", "MOMENTS LATER"]
PEOPLE = ["MARA", "JONAS", "ELSIE", "TOMAS", "INSPECTOR VOSS", "OLD KEEPER", "RUTH", "DECKHAND",
          "HARBOUR MASTER", "NINA"]
EXTENSIONS = ["V.O.", "O.S.", "CONT'D"]
SUBJECTS = ["The wind", "A gull", "Mara", "Jonas", "The lamp", "A bell", "The crowd", "Rain", "The engine",
            "A stranger", "Elsie", "The radio", "Tomas", "The tide"]
VERBS = ["rattles", "circles", "waits by", "stares at", "flickers over", "rings across", "pushes past",
         "drums on", "coughs beside", "slips behind", "crackles near", "drifts toward", "creeps up"]
OBJECTS = ["the pier", "the shuttered window", "an empty crate", "the rusted rail", "the ticket booth",
           "a coil of rope", "the harbour wall", "the ferry ramp", "a stack of nets", "the last lantern"]
DETAILS = ["Nobody looks up.", "Somewhere a dog barks.", "The clock reads *eleven forty*.",
           "Water pools on the floor.", "A door bangs twice.", "It smells of diesel and salt.",
           "The light goes **out**.", "Everyone freezes.", "_Something_ has changed."]
LINES = ["We should not be here.", "You said the ferry would wait.", "It always waits. Until it doesn't.",
         "I kept the ticket. Every year.", "Tell me what happened on the crossing.", "Nobody remembers it that way.",
         "The keeper saw everything.", "Then why did he never say?", "Because nobody asked him.",
         "We leave at midnight, with or without you.", "I'm not running this time.", "Hold the rope. Don't let go.",
         "Do you hear that?", "It's only the engine.", "It's never only the engine."]
PARENS = ["(quietly)", "(beat)", "(not looking up)", "(to Jonas)", "(laughing)", "(into the radio)"]
TRANSITIONS = ["CUT TO:", "DISSOLVE TO:", "SMASH CUT TO:", "MATCH CUT TO:"]


def sentence(rng):
    return f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)}. {rng.choice(DETAILS)}"


def scene(rng, number, out):
    prefix = rng.choice(["INT.", "EXT.", "INT./EXT.", "I/E"])
    out.append(f"{prefix} {rng.choice(PLACES)} - {rng.choice(TIMES)} #{number}#")
    out.append("")
    if rng.random() < 0.2:
        out.append(f"= {sentence(rng)}")
        out.append("")
    for _ in range(rng.randint(2, 4)):
        out.append(" ".join(sentence(rng) for _ in range(rng.randint(1, 3))))
        out.append("")
    for _ in range(rng.randint(3, 7)):
        who = rng.choice(PEOPLE)
        if rng.random() < 0.15:
            who += f" ({rng.choice(EXTENSIONS)})"
        out.append(who)
        if rng.random() < 0.3:
            out.append(rng.choice(PARENS))
        for _ in range(rng.randint(1, 3)):
            out.append(rng.choice(LINES))
        out.append("")
        if rng.random() < 0.08:
            out.append(f"{rng.choice(PEOPLE)} ^")
            out.append(rng.choice(LINES))
            out.append("")
        if rng.random() < 0.4:
            out.append(sentence(rng))
            out.append("")
        if rng.random() < 0.05:
            out.append(f"[[Check continuity in scene {number}.]]")
            out.append("")
    if rng.random() < 0.25:
        out.append(rng.choice(TRANSITIONS))
        out.append("")


def generate(target_bytes, seed):
    rng = random.Random(seed)
    out = ["Title:", "    _**THE NIGHT FERRY**_", "Credit: Written by", "Author: Reparto Benchmark Generator",
           f"Draft date: seed {seed}", "Contact:", "    Reparto Studios", "    12 Harbour Lane", "",
           "FADE IN:", ""]
    number = 1
    act = 1
    size = 0
    while size < target_bytes:
        if number % 40 == 1:
            out.append(f"## Act {act}")
            out.append("")
            act += 1
        scene(rng, number, out)
        number += 1
        size = sum(len(line) + 1 for line in out)
    out += ["> THE END <", "", "FADE OUT.", ""]
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("output", nargs="?", default="-")
    parser.add_argument("--target-bytes", type=int, default=150_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    text = generate(args.target_bytes, args.seed)
    if args.output == "-":
        print(text, end="")
    else:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
