#!/usr/bin/env python3
"""Checks the example outputs in README.md and docs/*.md against the binary.

An example is a fenced block whose lines start with `$ build/anygpu` or `$ anygpu` followed by
the output that command printed. Every such command that reads a fixture (`--root tests/…`) and
uses no shell syntax (pipes, redirections, `eval`, `$(…)`) is run from the repository root
with the given binary, stderr merged into stdout as a terminal shows them, and its output must
hold the example's lines in order:

- a line `…` stands for any number of lines;
- a line ending in `…` matches any line that starts with what comes before it;
- `…` inside a line stands for any text there;
- every other line must equal the output's line (trailing blanks ignored), and lines with no
  `…` between them must follow each other (the first may be anywhere).

Commands on the machine's own host (no `--root`) are listed as not checked: their output is
that machine's; so are commands that run until stopped (`exporter`, `top` without `-n`,
`--watch`) and `gather`, which writes its DIR on the machine (a second run finds it there).
Blank lines are ignored on both sides. Exit 0 when every checked example holds, 1 otherwise (each mismatch shown with
the command's real output), 2 for bad usage.

Usage: doc_examples.py BINARY [REPO_ROOT] [--list] | doc_examples.py --self-test
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

ELLIPSIS = "…"
SHELL_SYNTAX = re.compile(r"[|<>;&`]|\$\(|^\s*eval\b")


def doc_files(root):
    files = [os.path.join(root, "README.md")]
    docs = os.path.join(root, "docs")
    files += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))
    return [f for f in files if os.path.isfile(f)]


def examples(path):
    """(line number, command line, expected lines) for each `$ anygpu` command in a fence."""
    out, fence, current = [], False, None
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if line.lstrip().startswith("```"):
                if current:
                    out.append(current)
                fence, current = not fence, None
                continue
            if not fence:
                continue
            if line.startswith("$ "):
                if current:
                    out.append(current)
                current = (number, line[2:], []) if is_anygpu(line[2:]) else None
            elif current:
                current[2].append(line.rstrip())
    return out


def is_anygpu(command):
    first = command.split(None, 1)[0] if command.strip() else ""
    return first in ("anygpu", "build/anygpu")


def argv_of(command):
    """The argv after the program, or None when the line needs a shell or no fixture."""
    if SHELL_SYNTAX.search(command.split("#", 1)[0]):
        return None
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        return None
    args = words[1:]
    roots = [args[i + 1] for i, w in enumerate(args[:-1]) if w == "--root"]
    roots += [w.split("=", 1)[1] for w in args if w.startswith("--root=")]
    if not roots or not all(r.startswith("tests/") for r in roots):
        return None
    if "exporter" in args or "--watch" in args or ("top" in args and "-n" not in args) or \
            "gather" in args:
        return None
    return args


def pattern_of(line):
    if line.endswith(ELLIPSIS):
        return re.compile(re.escape(line[: -len(ELLIPSIS)].rstrip()) + ".*")
    parts = [re.escape(p) for p in line.split(ELLIPSIS)]
    return re.compile(".*".join(parts))


def holds(expected, actual):
    """Whether `actual` holds `expected`'s lines in order; else the first line that failed."""
    i, free = 0, True  # an example may start anywhere in the output
    for want in expected:
        if want.strip() == ELLIPSIS:
            free = True
            continue
        pattern = pattern_of(want)
        while i < len(actual) and not pattern.fullmatch(actual[i]):
            if not free:
                return want
            i += 1
        if i == len(actual):
            return want
        i, free = i + 1, False
    return None


def nonblank(lines):
    return [l for l in lines if l.strip()]


def self_test():
    """The matcher must fail where an example drifted: each case is (expected, actual, holds)."""
    out = ["host h: Debian", "IDX  NAME", "0    H100", "1    H100", "runtimes: cuda 12.4"]
    cases = [
        (["host h: Debian", "IDX  NAME"], out, True),
        (["host h: Debian", "0    H100"], out, False),            # a line left out, no …
        (["host h: Debian", "…", "0    H100"], out, True),
        (["IDX  NAME", "0    H100", "…"], out, True),
        (["0    H100", "IDX  NAME"], out, False),                 # order matters
        (["runtimes: cuda …"], out, True),
        (["runtimes: rocm …"], out, False),
        (["host …: Debian"], out, True),
        (["host h: Debian 12"], out, False),
        (["2    H100"], out, False),
        (["a", "", "b"], ["a", "", "b"], True),                # blank lines are not compared
        (["a", "b"], ["a", "", "b"], True),
        (["a", "b"], ["a", "x", "b"], False),
    ]
    bad = [c for c in cases if (holds(nonblank(c[0]), nonblank(c[1])) is None) != c[2]]
    for c in bad:
        print(f"self-test failed: {c[0]} against {c[1]}: expected holds={c[2]}", file=sys.stderr)
    skipped = [argv_of(c) for c in ("anygpu detect", "anygpu --root tests/x detect | jq .",
                                     "anygpu --root tests/x exporter", "anygpu --root /tmp/x detect",
                                     "anygpu --root tests/x gather /tmp/g")]
    if any(a is not None for a in skipped) or argv_of("anygpu --root tests/x detect  # c") != \
            ["--root", "tests/x", "detect"]:
        print("self-test failed: which commands are checked", file=sys.stderr)
        return 1
    return 1 if bad else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) < 2 or argv[1].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    binary = os.path.abspath(argv[1])
    root = os.path.abspath(argv[2]) if len(argv) > 2 and not argv[2].startswith("-") else \
        os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    listing = "--list" in argv
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANYGPU_")}
    env["LC_ALL"] = "C.UTF-8"
    # `image check` keeps what images hold in a cache: a private one, removed at the end.
    cache = tempfile.TemporaryDirectory()
    env["ANYGPU_CACHE_DIR"] = cache.name
    checked, skipped, failed = 0, 0, 0
    for path in doc_files(root):
        rel = os.path.relpath(path, root)
        for number, command, expected in examples(path):
            args = argv_of(command)
            if args is None:
                skipped += 1
                if listing:
                    print(f"not checked  {rel}:{number}: {command}")
                continue
            checked += 1
            run = subprocess.run([binary] + args, cwd=root, env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, timeout=120)
            actual = [l.rstrip() for l in run.stdout.decode("utf-8", "replace").splitlines()]
            missing = holds(nonblank(expected), nonblank(actual))
            if missing is None:
                if listing:
                    print(f"ok           {rel}:{number}: {command}")
                continue
            failed += 1
            print(f"FAIL {rel}:{number}: {command}\n  the output lacks: {missing}\n"
                  "  --- the command printed:")
            for l in actual[:60]:
                print("  | " + l)
    print(f"{checked} examples checked, {failed} failed; {skipped} not checked (no fixture, "
          "or shell syntax)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
