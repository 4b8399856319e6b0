#!/usr/bin/env python3
"""Times the Python Fountain parsers on files already in memory (no file I/O in the loop).

Usage: time_python.py screenplain|jouvence FILE... [--iterations N]
Prints: parser, file, bytes, mean_ms, median_ms, MB/s (tab separated).
"""
import argparse
import io
import statistics
import time


def make_parser(name):
    if name == "screenplain":
        from screenplain.parsers import fountain
        return lambda text: list(fountain.parse(io.StringIO(text)))
    if name == "jouvence":
        from jouvence.parser import JouvenceParser
        # JouvenceParser.parse() only works with a path (it opens the file itself);
        # _doParse() is the same parse on an in-memory stream.
        return lambda text: JouvenceParser()._doParse(io.StringIO(text))
    raise SystemExit(f"unknown parser {name}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("parser")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--iterations", type=int, default=20)
    args = ap.parse_args()
    parse = make_parser(args.parser)
    for path in args.files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        size = len(text.encode("utf-8"))
        parse(text)  # warm-up
        samples = []
        for _ in range(args.iterations):
            start = time.perf_counter()
            parse(text)
            samples.append((time.perf_counter() - start) * 1000)
        mean = statistics.fmean(samples)
        print(f"{args.parser}\t{path}\t{size}\t{mean:.3f}\t{statistics.median(samples):.3f}\t{size / 1e6 / (mean / 1e3):.2f}")


if __name__ == "__main__":
    main()
