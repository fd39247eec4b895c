#!/usr/bin/python3
"""Compares data/wheels.yaml with PyTorch's published release matrix and drafts what is missing.

    scripts/refresh_wheels.py RELEASE.md [WHEELS_YAML] [--check]

RELEASE.md is pytorch/pytorch's RELEASE.md (https://github.com/pytorch/pytorch/blob/main/
RELEASE.md); its "Release Compatibility Matrix" table names, per release, the stable and
experimental CUDA versions and the stable ROCm. For every release in that table:

  - already in wheels.yaml: each CUDA (cuXYZ) and ROCm (rocmX.Y) build the matrix names must be
    one of the release's variants; a missing one is reported;
  - not in wheels.yaml: a release block is printed, ready to paste under `packages: torch:
    releases:`, its variants carried from the newest release that has a variant of the same
    name (arch lists included) and every carried or new value listed under `unverified` for the
    reviewer to confirm against .ci/manywheel/build_cuda.sh and the ROCm build scripts.

Run by hand when PyTorch publishes a release; review the draft, then edit wheels.yaml. Exit
status: 0, or 1 with --check when a release or a variant is missing; 2 on bad input.
"""

import re
import sys

import yaml

DEFAULT_WHEELS = "data/wheels.yaml"


def matrix_rows(text):
    """{"2.12": {"cuda": ["12.6", "13.0", "13.2"], "rocm": ["7.2"]}} from the matrix table."""
    rows = {}
    in_table = False
    header = None
    for line in text.splitlines():
        if line.startswith("## "):
            in_table = line.strip() == "## Release Compatibility Matrix"
            header = None
            continue
        if not in_table or not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = [c.lower() for c in cells]
            continue
        if set(cells[0]) <= set("- "):
            continue
        if not re.fullmatch(r"\d+\.\d+", cells[0]):
            raise ValueError("matrix row %r: first cell is not a release" % line)
        row = dict(zip(header, cells))
        cuda_text = " ".join(v for k, v in row.items() if "cuda" in k)
        rocm_text = " ".join(v for k, v in row.items() if "rocm" in k)
        rows[cells[0]] = {
            "cuda": sorted(set(re.findall(r"CUDA (\d+\.\d+)", cuda_text)), key=version_key),
            "rocm": sorted(set(re.findall(r"ROCm (\d+\.\d+(?:\.\d+)?)", rocm_text)),
                           key=version_key),
        }
    if not rows:
        raise ValueError("no 'Release Compatibility Matrix' table found")
    return rows


def version_key(v):
    return tuple(int(p) for p in v.split("."))


def variant_names(row):
    return ["cu" + c.replace(".", "") for c in row["cuda"]] + ["rocm" + r for r in row["rocm"]]


def main(argv):
    args = [a for a in argv[1:] if a != "--check"]
    check = "--check" in argv[1:]
    if not 1 <= len(args) <= 2:
        sys.stderr.write(__doc__)
        return 2
    release_md = args[0]
    wheels_path = args[1] if len(args) == 2 else DEFAULT_WHEELS
    try:
        with open(release_md) as f:
            rows = matrix_rows(f.read())
        with open(wheels_path) as f:
            wheels = yaml.safe_load(f)
        torch = next(p for p in wheels["packages"] if p["name"] == "torch")
    except (OSError, ValueError, KeyError, StopIteration, yaml.YAMLError) as e:
        sys.stderr.write("refresh_wheels.py: %s\n" % e)
        return 2
    releases = {r["version"]: r for r in torch["releases"]}
    problems = 0
    drafts = []
    for version in sorted(rows, key=version_key):
        want = variant_names(rows[version])
        if version in releases:
            have = {v["name"] for v in releases[version]["variants"]}
            for name in want:
                if name not in have:
                    print("%s: the matrix names %s, wheels.yaml does not" % (version, name))
                    problems += 1
            continue
        if version_key(version) < version_key(min(releases, key=version_key)):
            continue  # older than the table covers
        problems += 1
        drafts.append(draft(version, want, torch["releases"]))
    for d in drafts:
        print(d)
    if not problems:
        print("wheels.yaml has every release and build of the matrix")
    return 1 if check and problems else 0


def draft(version, names, known):
    lines = ['      - version: "%s"' % version, '        latest: "%s.0"' % version,
             "        variants:"]
    unverified = ["latest"]
    for name in names + ["xpu", "cpu"]:
        carried = None
        for r in sorted(known, key=lambda r: version_key(r["version"]), reverse=True):
            carried = next((v for v in r["variants"] if v["name"] == name), None)
            if carried:
                break
        if carried is None:
            if name.startswith("cu"):
                carried = {"name": name, "cuda": "%s.%s" % (name[2:-1], name[-1]), "arches": []}
            elif name.startswith("rocm"):
                carried = {"name": name, "rocm": name[4:], "gfx": []}
            else:
                carried = {"name": name}
        if name.startswith(("cu", "rocm")):
            unverified.append("%s %s" % (name, "arch list" if name.startswith("cu") else "gfx list"))
        lines.append("          - " + yaml.safe_dump(carried, default_flow_style=True,
                                                     sort_keys=False, width=200).strip())
    lines.append("        unverified: [%s]" % ", ".join(unverified))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
