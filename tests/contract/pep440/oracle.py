#!/usr/bin/python3
"""Answers PEP 440 questions with Debian's python3-packaging, for the differential test.

Reads one JSON array per line on stdin: ["parse", VERSION], ["compare", A, B] or
["contains", VERSION, SPECIFIERS] (JSON, as versions may hold any character); writes one answer
per line: the normalised version or "invalid"; -1/0/1; "true", "false" or "invalid-specifier".
"""
import json
import sys

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version


def version(text):
    try:
        return Version(text)
    except InvalidVersion:
        return None


for line in sys.stdin:
    kind, *args = json.loads(line)
    if kind == "parse":
        v = version(args[0])
        print("invalid" if v is None else json.dumps(str(v)))
    elif kind == "compare":
        a, b = Version(args[0]), Version(args[1])
        print(-1 if a < b else (1 if a > b else 0))
    elif kind == "contains":
        try:
            spec = SpecifierSet(args[1], prereleases=True)
        except InvalidSpecifier:
            print("invalid-specifier")
            continue
        try:
            print("true" if spec.contains(args[0]) else "false")
        except InvalidVersion:  # packaging < 22 raised; later releases answer False
            print("false")
    else:
        sys.exit("oracle.py: unknown request %r" % kind)
