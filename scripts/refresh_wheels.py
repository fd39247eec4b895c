#!/usr/bin/python3
"""Checks data/wheels.yaml against what PyTorch publishes, drafts what is missing, and with
--write brings the table up to date.

    scripts/refresh_wheels.py [RELEASE.md] [--pypi SIMPLE.json] [--index INDEX.html]
                              [--metadata METADATA]... [--arch-report REPORT.json]...
                              [--wheels WHEELS_YAML] [--check] [--write]

Every input is a page saved beforehand (curl), so a run is reviewable and repeatable:

  RELEASE.md     pytorch/pytorch's RELEASE.md: its "Release Compatibility Matrix" names the
                 stable and experimental CUDA and the stable ROCm of each release.
  --pypi         PyPI's JSON simple page (PEP 691) of torch:
                     curl -H 'Accept: application/vnd.pypi.simple.v1+json' \\
                          https://pypi.org/simple/torch/
                 Its final versions give each release and its newest patch (`latest`).
  --index        PyTorch's own index page of torch (PEP 503 HTML),
                 https://download.pytorch.org/whl/torch/: the +cuXYZ / +rocmX.Y / +xpu / +cpu
                 Linux x86_64 wheels name each release's variants.
  --metadata     The METADATA file of a PyPI Linux x86_64 torch wheel (the default build; e.g.
                 unzip -p torch-2.15.0-*.whl 'torch-2.15.0.dist-info/METADATA'): its
                 Requires-Dist pins the CUDA it was built with, a variant the release must have.
  --arch-report  What an installed build reports about itself, saved by
                     python -c 'import json, torch; print(json.dumps({"version":
                       torch.__version__, "cuda": torch.version.cuda,
                       "arch_list": torch.cuda.get_arch_list()}))'
                 Its sm_XY entries are the variant's cubins, compute_XY its PTX.

For a release the table has, each source's facts must match it; a difference is reported.
A release the table lacks is drafted (variants from --index or the matrix, arch lists carried
from the newest release with a variant of the same name unless an arch report gives them; every
carried value is listed under `unverified`). --write appends the drafts and updates `latest:`
lines in WHEELS_YAML (default data/wheels.yaml), keeping its comments; review the diff.

Exit status: 0; 1 with --check when the table differs from a source; 2 on bad input (the
message names the file).
"""

import argparse
import email.parser
import html.parser
import json
import re
import sys

import yaml

DEFAULT_WHEELS = "data/wheels.yaml"
MAX_INPUT_BYTES = 64 << 20


class BadInput(Exception):
    pass


def version_key(v):
    return tuple(int(p) for p in v.split("."))


def read_text(path):
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_INPUT_BYTES + 1)
    except OSError as e:
        raise BadInput("%s: %s" % (path, e.strerror or e))
    if len(data) > MAX_INPUT_BYTES:
        raise BadInput("%s: larger than %d bytes" % (path, MAX_INPUT_BYTES))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadInput("%s: not UTF-8 (byte %d)" % (path, e.start))


# ---- RELEASE.md -------------------------------------------------------------------------

def matrix_rows(text, path="RELEASE.md"):
    """{"2.12": {"cuda": ["12.6", "13.0", "13.2"], "rocm": ["7.2"]}} from the matrix table."""
    rows = {}
    in_table = False
    header = None
    for lineno, line in enumerate(text.splitlines(), 1):
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
            raise BadInput("%s:%d: matrix row: first cell %r is not a release"
                           % (path, lineno, cells[0]))
        row = dict(zip(header, cells))
        cuda_text = " ".join(v for k, v in row.items() if "cuda" in k)
        rocm_text = " ".join(v for k, v in row.items() if "rocm" in k)
        rows[cells[0]] = {
            "cuda": sorted(set(re.findall(r"CUDA (\d+\.\d+)", cuda_text)), key=version_key),
            "rocm": sorted(set(re.findall(r"ROCm (\d+\.\d+(?:\.\d+)?)", rocm_text)),
                           key=version_key),
        }
    if not rows:
        raise BadInput("%s: no 'Release Compatibility Matrix' table found" % path)
    return rows


def variant_names(row):
    return ["cu" + c.replace(".", "") for c in row["cuda"]] + ["rocm" + r for r in row["rocm"]]


# ---- PyPI simple JSON ---------------------------------------------------------------------

FINAL = re.compile(r"(\d+)\.(\d+)\.(\d+)")


def pypi_latest(text, path):
    """{"2.14": "2.14.1"}: the newest final patch of each release with a file not yanked."""
    try:
        page = json.loads(text)
    except ValueError as e:
        raise BadInput("%s: not JSON: %s" % (path, e))
    if not isinstance(page, dict) or not isinstance(page.get("files"), list):
        raise BadInput("%s: not a PEP 691 simple page (no 'files' list)" % path)
    live = set()
    for i, f in enumerate(page["files"]):
        if not isinstance(f, dict) or not isinstance(f.get("filename"), str):
            raise BadInput("%s: files[%d] has no filename" % (path, i))
        m = re.match(r"torch-(\d+\.\d+\.\d+)-", f["filename"])
        if m and not f.get("yanked"):
            live.add(m.group(1))
    latest = {}
    for v in live:
        release = ".".join(v.split(".")[:2])
        if release not in latest or version_key(v) > version_key(latest[release]):
            latest[release] = v
    if not latest:
        raise BadInput("%s: no torch X.Y.Z wheel in 'files'" % path)
    return latest


# ---- download.pytorch.org index (PEP 503) -------------------------------------------------

class _Anchors(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.names = []
        self._in_a = False

    def handle_starttag(self, tag, attrs):
        self._in_a = tag == "a"

    def handle_endtag(self, tag):
        self._in_a = False

    def handle_data(self, data):
        if self._in_a:
            self.names.append(data.strip())


LINUX_WHEEL = re.compile(
    r"torch-(\d+\.\d+\.\d+)\+([a-z0-9.]+)-cp\d+-cp\d+t?-(?:manylinux[_0-9]*|linux)_x86_64\.whl")


def index_variants(text, path):
    """{"2.15": {"version": "2.15.0", "variants": {"cu130", "rocm7.14", "cpu"}}}."""
    parser = _Anchors()
    try:
        parser.feed(text)
        parser.close()
    except Exception as e:  # html.parser raises assorted errors on broken markup
        raise BadInput("%s: not an HTML index: %s" % (path, e))
    out = {}
    for name in parser.names:
        m = LINUX_WHEEL.fullmatch(name)
        if not m:
            continue
        version, local = m.groups()
        if not re.fullmatch(r"cu\d{3}|rocm\d+\.\d+(?:\.\d+)?|xpu|cpu", local):
            continue
        release = ".".join(version.split(".")[:2])
        entry = out.setdefault(release, {"version": version, "variants": set()})
        if version_key(version) > version_key(entry["version"]):
            entry["version"] = version
        entry["variants"].add(local)
    if not out:
        raise BadInput("%s: no Linux x86_64 torch wheel with a +variant tag" % path)
    return out


# ---- wheel METADATA -----------------------------------------------------------------------

CUDA_PIN = re.compile(
    r"^(?:cuda-toolkit(?:\[[^\]]*\])?|nvidia-cuda-runtime(?:-cu\d+)?)\s*==\s*(\d+)\.(\d+)")


def metadata_cuda(text, path):
    """("2.15.0", "cu132"): the version and the CUDA variant a PyPI wheel's METADATA pins."""
    msg = email.parser.Parser().parsestr(text, headersonly=True)
    version = msg.get("Version")
    if msg.get("Name", "").lower() != "torch" or not version:
        raise BadInput("%s: not the METADATA of a torch wheel (Name/Version missing)" % path)
    if not FINAL.fullmatch(version.strip()):
        raise BadInput("%s: Version %r is not X.Y.Z" % (path, version))
    for req in msg.get_all("Requires-Dist") or []:
        m = CUDA_PIN.match(req.strip())
        if m:
            return version.strip(), "cu%s%s" % m.groups()
    return version.strip(), None  # a CPU-only wheel (macOS, or a +cpu build)


# ---- arch report --------------------------------------------------------------------------

def arch_report(text, path):
    """("2.15.0", "cu132", ["sm_75", …], "sm_120" or None) from a saved self-report."""
    try:
        r = json.loads(text)
    except ValueError as e:
        raise BadInput("%s: not JSON: %s" % (path, e))
    if not isinstance(r, dict):
        raise BadInput("%s: expected an object" % path)
    version, arches = r.get("version"), r.get("arch_list")
    if not isinstance(version, str) or not isinstance(arches, list) or \
            not all(isinstance(a, str) for a in arches):
        raise BadInput("%s: needs 'version' (text) and 'arch_list' (list of text)" % path)
    m = re.fullmatch(r"(\d+\.\d+\.\d+)\+(cu\d{3})", version)
    if not m:
        raise BadInput("%s: version %r is not a CUDA build (X.Y.Z+cuXYZ)" % (path, version))
    cubins, ptx = [], []
    for a in arches:
        k = re.fullmatch(r"(sm|compute)_(\d+[a-z]?)", a)
        if not k:
            raise BadInput("%s: arch_list entry %r is neither sm_XY nor compute_XY" % (path, a))
        (cubins if k.group(1) == "sm" else ptx).append("sm_" + k.group(2))
    if len(ptx) > 1:
        raise BadInput("%s: more than one compute_XY entry" % path)
    return m.group(1), m.group(2), cubins, (ptx[0] if ptx else None)


# ---- comparing and drafting ---------------------------------------------------------------

class Report:
    def __init__(self):
        self.problems = []
        self.latest_updates = {}  # release -> newest patch
        self.drafts = {}          # release -> {"latest": …, "variants": {name: dict}}

    def problem(self, text):
        self.problems.append(text)


def carried_variant(name, releases):
    """The newest variant of that name; for a new CUDA or ROCm, the newest of its kind (same
    CUDA major first) with the version replaced. The caller marks it unverified."""
    newest_first = sorted(releases, key=lambda r: version_key(r["version"]), reverse=True)
    for r in newest_first:
        for v in r["variants"]:
            if v["name"] == name:
                return dict(v)
    kinds = []
    if name.startswith("cu"):
        major = name[2:-1]
        kinds = [lambda v: v.get("cuda", "").split(".")[0] == major, lambda v: "cuda" in v]
        fresh = {"name": name, "cuda": "%s.%s" % (major, name[-1])}
    elif name.startswith("rocm"):
        kinds = [lambda v: "rocm" in v]
        fresh = {"name": name, "rocm": name[4:]}
    else:
        return {"name": name}
    for same_kind in kinds:
        for r in newest_first:
            for v in r["variants"]:
                if same_kind(v):
                    carried = dict(v)
                    carried.update(fresh)
                    return carried
    raise BadInput("no %s build in the table to carry an architecture list from" % name)


def want_variants(report, releases, version, names, source):
    """Release `version` must have `names`: checked when the table has it, else drafted."""
    if version in releases:
        have = {v["name"] for v in releases[version]["variants"]}
        for name in names:
            if name not in have:
                report.problem("%s: %s names %s, wheels.yaml does not" % (version, source, name))
        return
    oldest = min(releases, key=version_key)
    if version_key(version) < version_key(oldest):
        return  # older than the table covers
    d = report.drafts.setdefault(version, {"latest": version + ".0", "variants": {},
                                           "verified": set()})
    for name in names:
        d["variants"].setdefault(name, None)
    d.setdefault("named", set()).update(names)


def check_latest(report, releases, latest):
    for release, newest in sorted(latest.items(), key=lambda kv: version_key(kv[0])):
        if release in releases:
            if version_key(newest) > version_key(releases[release]["latest"]):
                report.problem("%s: PyPI's newest patch is %s, wheels.yaml says %s"
                               % (release, newest, releases[release]["latest"]))
                report.latest_updates[release] = newest
        elif release in report.drafts:
            report.drafts[release]["latest"] = newest
        elif version_key(release) > version_key(max(releases, key=version_key)):
            report.problem("%s: on PyPI (%s), not in wheels.yaml" % (release, newest))
            report.drafts[release] = {"latest": newest, "variants": {}, "verified": set(),
                                      "named": set()}


def check_arches(report, releases, version, variant, cubins, ptx, path):
    release = ".".join(version.split(".")[:2])
    if release in report.drafts:
        report.drafts[release]["variants"][variant] = {
            "name": variant, "cuda": "%s.%s" % (variant[2:-1], variant[-1]), "arches": cubins}
        if ptx:
            report.drafts[release]["variants"][variant]["ptx"] = ptx
        report.drafts[release]["verified"].add(variant)
        return
    if release not in releases:
        report.problem("%s: %s+%s is not in wheels.yaml" % (path, version, variant))
        return
    v = next((v for v in releases[release]["variants"] if v["name"] == variant), None)
    if v is None:
        report.problem("%s: %s has no %s variant in wheels.yaml" % (path, release, variant))
        return
    if list(v.get("arches") or []) != cubins or v.get("ptx") != ptx:
        report.problem("%s: %s %s reports cubins %s%s; wheels.yaml says %s%s"
                       % (path, release, variant, cubins, " + PTX " + ptx if ptx else "",
                          list(v.get("arches") or []),
                          " + PTX " + v["ptx"] if v.get("ptx") else ""))


def draft_text(version, d, releases):
    lines = ['      - version: "%s"' % version, '        latest: "%s"' % d["latest"],
             "        variants:"]
    names = list(d["variants"]) or ["cpu"]
    for extra in ("xpu", "cpu"):
        if extra not in names:
            names.append(extra)
    unverified = []
    for name in names:
        v = d["variants"].get(name) or carried_variant(name, releases.values())
        if name not in d.get("named", ()):
            unverified.append(name)  # no source named it: carried by habit (xpu, cpu)
        if name not in d["verified"] and name.startswith(("cu", "rocm")):
            unverified.append("%s %s" % (name, "arch list" if name.startswith("cu")
                                         else "gfx list"))
        lines.append("          - " + yaml.safe_dump(v, default_flow_style=True,
                                                     sort_keys=False, width=200).strip())
    if unverified:
        lines.append("        unverified: [%s]" % ", ".join(unverified))
    return "\n".join(lines)


def write_table(path, text, report, releases):
    for release, newest in report.latest_updates.items():
        pattern = re.compile(r'(- version: "%s"\n\s+latest: ")[^"]*(")' % re.escape(release))
        text, n = pattern.subn(r"\g<1>%s\g<2>" % newest, text)
        if n != 1:
            raise BadInput("%s: cannot find the latest: line of %s" % (path, release))
    if report.drafts:
        # After the last torch release block: its lines are indented by 8 spaces.
        last = max(releases, key=version_key)
        marker = '      - version: "%s"\n' % last
        if text.count(marker) != 1:
            raise BadInput("%s: cannot find the block of %s" % (path, last))
        at = text.index(marker) + len(marker)
        while at < len(text) and text.startswith("        ", at):
            at = text.index("\n", at) + 1 if "\n" in text[at:] else len(text)
        blocks = "".join(draft_text(v, report.drafts[v], releases) + "\n"
                         for v in sorted(report.drafts, key=version_key))
        text = text[:at] + blocks + text[at:]
    with open(path, "w") as f:
        f.write(text)


def main(argv):
    ap = argparse.ArgumentParser(add_help=True, usage=__doc__)
    ap.add_argument("release_md", nargs="?")
    ap.add_argument("wheels_positional", nargs="?")
    ap.add_argument("--pypi")
    ap.add_argument("--index")
    ap.add_argument("--metadata", action="append", default=[])
    ap.add_argument("--arch-report", action="append", default=[])
    ap.add_argument("--wheels")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--write", action="store_true")
    try:
        args = ap.parse_args(argv[1:])
    except SystemExit:
        return 2
    if not (args.release_md or args.pypi or args.index or args.metadata or args.arch_report):
        sys.stderr.write(__doc__)
        return 2
    wheels_path = args.wheels or args.wheels_positional or DEFAULT_WHEELS
    report = Report()
    try:
        wheels_text = read_text(wheels_path)
        try:
            wheels = yaml.safe_load(wheels_text)
            torch = next(p for p in wheels["packages"] if p["name"] == "torch")
            releases = {r["version"]: r for r in torch["releases"]}
        except (yaml.YAMLError, KeyError, TypeError, StopIteration) as e:
            raise BadInput("%s: not a wheel table: %s" % (wheels_path, e))
        if args.release_md:
            rows = matrix_rows(read_text(args.release_md), args.release_md)
            for version in sorted(rows, key=version_key):
                want_variants(report, releases, version, variant_names(rows[version]),
                              "the matrix")
        if args.index:
            for release, e in sorted(index_variants(read_text(args.index), args.index).items(),
                                     key=lambda kv: version_key(kv[0])):
                want_variants(report, releases, release, sorted(e["variants"]), "the index")
                if release in report.drafts:
                    report.drafts[release]["latest"] = e["version"]
        for path in args.metadata:
            version, variant = metadata_cuda(read_text(path), path)
            if variant:
                want_variants(report, releases, ".".join(version.split(".")[:2]), [variant],
                              "PyPI's default wheel")
        if args.pypi:
            check_latest(report, releases, pypi_latest(read_text(args.pypi), args.pypi))
        for path in args.arch_report:
            version, variant, cubins, ptx = arch_report(read_text(path), path)
            release = ".".join(version.split(".")[:2])
            want_variants(report, releases, release, [variant], "an installed build")
            check_arches(report, releases, version, variant, cubins, ptx, path)
        for line in report.problems:
            print(line)
        for version in sorted(report.drafts, key=version_key):
            print(draft_text(version, report.drafts[version], releases))
        if args.write and (report.latest_updates or report.drafts):
            write_table(wheels_path, wheels_text, report, releases)
    except BadInput as e:
        sys.stderr.write("refresh_wheels.py: %s\n" % e)
        return 2
    if not report.problems and not report.drafts:
        print("wheels.yaml agrees with every source given")
    return 1 if args.check and (report.problems or report.drafts) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
