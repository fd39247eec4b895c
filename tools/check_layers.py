#!/usr/bin/python3
"""The include graph between src/ areas runs downward only.

tools/layers.txt puts every folder of src/ on a floor; a file may include headers of its own
area and of areas on lower floors. An include that points sideways or up is an error naming
FILE:LINE, unless it is listed under `pending` in layers.txt: the back-arrows that exist today
and are being removed. The list only shrinks: a pending arrow that no longer exists is an
error too, so the line must leave the list the day its include goes.

usage: check_layers.py [SOURCE_ROOT]     exit 0 clean, 1 violations, 2 a malformed layers.txt
       check_layers.py --self-test       proves the check fails on a back-arrow and a stale entry
"""

import os
import re
import shutil
import sys
import tempfile

INCLUDE = re.compile(r'\s*#\s*include\s+"([A-Za-z0-9_]+)/([^"]+)"')


def read_table(path):
    floors, pending = {}, set()
    with open(path) as f:
        for number, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].split()
            if not line:
                continue
            where = f"{path}:{number}"
            if line[0] == "pending":
                if len(line) != 3:
                    raise ValueError(f"{where}: expected 'pending FILE AREA/HEADER'")
                pending.add((line[1], line[2]))
            elif line[0].isdigit():
                for area in line[1:]:
                    if area in floors:
                        raise ValueError(f"{where}: area '{area}' is on two floors")
                    floors[area] = int(line[0])
            else:
                raise ValueError(f"{where}: expected 'FLOOR AREA…' or 'pending FILE HEADER'")
    return floors, pending


def check(root):
    floors, pending = read_table(os.path.join(root, "tools", "layers.txt"))
    src = os.path.join(root, "src")
    errors, seen = [], set()
    for area in sorted(os.listdir(src)):
        if os.path.isdir(os.path.join(src, area)) and area not in floors:
            errors.append(f"src/{area}/: not on any floor of tools/layers.txt")
    for folder, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith((".h", ".cc")):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            area = rel.split(os.sep)[1]
            with open(path, errors="replace") as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m or m[1] == area or m[1] not in floors or area not in floors:
                        continue
                    if floors[m[1]] < floors[area]:
                        continue
                    header = f"{m[1]}/{m[2]}"
                    if (rel, header) in pending:
                        seen.add((rel, header))
                        continue
                    errors.append(f"{rel}:{number}: {area} (floor {floors[area]}) includes "
                                  f"{header} (floor {floors[m[1]]}): areas include only lower "
                                  "floors")
    for rel, header in sorted(pending - seen):
        errors.append(f"tools/layers.txt: 'pending {rel} {header}' no longer exists: remove "
                      "the line")
    return errors


def self_test():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tmp = tempfile.mkdtemp(prefix="anygpu-layers-")
    try:
        os.makedirs(os.path.join(tmp, "tools"))
        with open(os.path.join(tmp, "tools", "layers.txt"), "w") as f:
            f.write("2 high\n1 low\npending src/low/b.cc high/gone.h\n")
        for area, text in (("high", '#include "low/a.h"\n'), ("low", '#include "high/x.h"\n')):
            os.makedirs(os.path.join(tmp, "src", area))
            with open(os.path.join(tmp, "src", area, "a.cc"), "w") as f:
                f.write(text)
        os.makedirs(os.path.join(tmp, "src", "stray"))
        errors = check(tmp)
        want = ["src/low/a.cc:1: low (floor 1) includes high/x.h",
                "src/stray/: not on any floor",
                "'pending src/low/b.cc high/gone.h' no longer exists"]
        missing = [w for w in want if not any(w in e for e in errors)]
        if missing or len(errors) != len(want):
            print("FAIL self-test: got", errors, "missing", missing)
            return 1
        # The real tree passes only if its own table parses.
        read_table(os.path.join(here, "tools", "layers.txt"))
        print("ok   self-test: a back-arrow, an unplaced area and a stale pending line fail")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))
    try:
        errors = check(root)
    except (OSError, ValueError) as e:
        print(f"check_layers: {e}", file=sys.stderr)
        return 2
    for e in errors:
        print(e)
    if errors:
        return 1
    print("ok   every include between src/ areas points to a lower floor")
    return 0


if __name__ == "__main__":
    sys.exit(main())
