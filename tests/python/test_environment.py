"""Every environment variable anygpu reads, fed valid and invalid values through each interface
that reads it: the CLI, the C ABI (ctypes on libanygpu.so, no package) and the Python package.
Each accepts exactly what the others accept and refuses the rest with the same text, the text
of the one table (util/env_vars.cc, served as anygpu_environment_json); docs/environment.md
shows that table, and every variable the sources read is in it."""
import json
import os
import re
import subprocess
import sys

import pytest

import anygpu
import anygpu.torch as agt
from anygpu._environment import selection_from_environment, table, value, integer
from anygpu._library import refused_library
from anygpu.torch._distributed import rendezvous_timeout
from conftest import BINARY, LIBRARY, PYTHON, REPO, clean_env, host, run_python

TABLE = table(environ={})["variables"]
ROWS = {r["name"]: r for r in TABLE}
FIXTURE = host("mi300x-8x")


def samples(row, tmp):
    """Valid and invalid values for a row, from its kind and range."""
    kind = row["kind"]
    if kind == "integer":
        lo, hi = row["min"], row["max"]
        out = [str(lo), str(hi), f" {lo} ", "abc", "+5", "0x10", "1e3", "9" * 30, "-1", ""]
        out += [str(lo - 1)] if lo > 0 else []
        out += [str(hi + 1)] if hi < 2**64 - 1 else []
        return out
    if kind == "boolean":
        return ["1", "0", "true", "FALSE", "Yes", "no", "maybe", "2", "on", " 1", ""]
    if kind == "keyword":
        return row["words"] + [w.upper() for w in row["words"]] + ["bogus", "x\x1b[31m", ""]
    if kind == "name":
        return ["nvidia", "amd-2.x_y", "Nvidia", "1abc", "a b", "x;rm", ""]
    if kind == "list":
        return ["0000:01:00.0,0000:02:00.0", "a, b,", "a b", "x\ty", ""]
    if kind == "indices":
        return ["0,1", " 3 ,", "+2", str(row["max"]), str(row["max"] + 1), "-1", "a b", "0x1", ""]
    if kind in ("text", "any"):
        return ["node-1", "bad\x01", ""]
    if kind == "path":
        return ["libnowhere.so", "", "  ", "\t"]
    if kind == "directory":
        os.makedirs(f"{tmp}/dir", exist_ok=True)
        open(f"{tmp}/file", "w").close()
        return [f"{tmp}/dir", f"{tmp}/file", f"{tmp}/none", REPO + "/data", ""]
    if kind == "executable":
        open(f"{tmp}/plain", "w").close()
        return [BINARY, f"{tmp}/plain", "anygpu", f"{tmp}/none", tmp, ""]
    if kind == "torch_device":
        return ["cuda", "cpu", "npu", "hip", "CUDA", ""]
    if kind == "hostlist":
        return ["n1", "gpu[01-04,07]", "a[3],b[1-2]", "[01-02", "gpu[4-1]", ""]
    if kind == "tasks_per_node":
        return ["2(x3),1", "1", "2(x", "x", ""]
    raise AssertionError(f"{row['name']}: kind {kind} has no samples: add them here")


def verdict(name, raw):
    """The table's verdict: None (accepted or unset) or the refusal."""
    return table(environ={name: raw}, names=[name])["variables"][0].get("error")


def first_line(text):
    return text.strip().splitlines()[0] if text.strip() else ""


# --- the three interfaces, each in a fresh process (the registry override is read once) ------

def cli(args, **env):
    proc = subprocess.run([BINARY, *args], env=clean_env(**env), capture_output=True,
                          text=True, timeout=120)
    msg = proc.stderr.strip().splitlines()
    refusal = next((m[len("anygpu: "):] for m in msg if m.startswith("anygpu: ")), "")
    return proc.returncode, refusal


C_ABI = """
import ctypes, json, sys
lib = ctypes.CDLL(sys.argv[1])
for f in ("anygpu_detect_json", "anygpu_select_json", "anygpu_environment_json"):
    getattr(lib, f).restype = ctypes.c_void_p
    getattr(lib, f).argtypes = [ctypes.c_char_p]
def call(f, options):
    p = getattr(lib, f)(json.dumps(options).encode() if options is not None else None)
    doc = json.loads(ctypes.string_at(p).decode())
    lib.anygpu_free(ctypes.c_void_p(p))
    return doc
doc = call(sys.argv[2], json.loads(sys.argv[3]))
print(json.dumps({"doc": doc, "env": call("anygpu_environment_json", None)}))
"""


def refusal(doc):
    return doc["error"] if doc["schema"] == "anygpu.error/v1" else ""


def c_abi(function, options, **env):
    """From a pure C ABI caller: the call's refusal (or ""), and the table's verdict on this
    process's environment: the rows, or the refusal every call gives (a registry that does not
    load)."""
    proc = subprocess.run([PYTHON, "-c", C_ABI, LIBRARY, function, json.dumps(options)],
                          env=clean_env(**env), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    return refusal(out["doc"]), out["env"]


PY_DETECT = """
import sys, anygpu
try:
    anygpu.detect(root=sys.argv[1], no_libs=True)
except anygpu.AnygpuError as e:
    print(type(e).__name__); print(e)
"""


def python_detect(**env):
    out = run_python(PY_DETECT.replace("sys.argv[1]", repr(FIXTURE)), **env).stdout
    lines = out.splitlines()
    return (lines[0], "\n".join(lines[1:])) if lines else ("", "")


# --- what steers anygpu: CLI start, every C ABI call, every Python call -----------------------

@pytest.mark.parametrize("name", [r["name"] for r in TABLE if r["steers"]])
def test_steering_variables_alike_in_cli_c_abi_and_python(name, tmp_path):
    row = ROWS[name]
    for raw in samples(row, tmp_path):
        rc, cli_msg = cli(["--root", FIXTURE, "--no-libs", "detect", "--json"], **{name: raw})
        capi_msg, env_doc = c_abi("anygpu_detect_json", {"root": FIXTURE, "no_libs": True},
                                  **{name: raw})
        cls, py_msg = python_detect(**{name: raw})
        table_msg = refusal(env_doc) or next(
            r for r in env_doc["variables"] if r["name"] == name).get("error", "")
        case = f"{name}={raw!r}: cli {rc} {cli_msg!r}; c-abi {capi_msg!r}; python {py_msg!r}; " \
               f"table {table_msg!r}"
        assert (rc == 0) == (capi_msg == "") == (py_msg == "") == (table_msg == ""), case
        assert cli_msg == capi_msg == py_msg == table_msg, case
        if table_msg:
            assert rc == 2 and cls == "InvalidEnvironmentError", case


def test_a_flag_does_not_skip_the_variables_check():
    rc, msg = cli(["--root", FIXTURE, "--no-libs", "detect"], ANYGPU_NO_LIBS="maybe")
    assert rc == 2 and msg.startswith('ANYGPU_NO_LIBS="maybe"'), msg


# --- what only Python reads: its readers raise the table's refusal, and only that -------------

def _selection(name, raw):
    env = {"ANYGPU_VENDOR": "nvidia", "ANYGPU_TORCH_DEVICE": "cuda", name: raw}
    return selection_from_environment(env)


def _ranks_torchrun(name, raw):
    return agt.ranks({"RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "a", "MASTER_PORT": "1",
                      name: raw})


def _ranks_srun(name, raw):
    return agt.ranks({"SLURM_JOB_ID": "1", "SLURM_STEP_NUM_TASKS": "1", "SLURM_PROCID": "0",
                      "SLURM_JOB_NODELIST": "n1", name: raw})


def _batch_script(name, raw):
    return agt.ranks({"SLURM_JOB_ID": "1", name: raw})


def _in_process(reader):
    def read(name, raw, monkeypatch):
        monkeypatch.setenv(name, raw)
        return reader()
    return read


PYTHON_READERS = {
    "ANYGPU_VENDOR": [_selection], "ANYGPU_BACKEND": [_selection],
    "ANYGPU_TORCH_DEVICE": [_selection], "ANYGPU_DIST_BACKEND": [_selection],
    "ANYGPU_DEVICES": [_selection], "ANYGPU_NUM_WORKERS": [_selection],
    "ANYGPU_RENDEZVOUS_TIMEOUT": [_in_process(rendezvous_timeout)],
    "RANK": [_ranks_torchrun], "WORLD_SIZE": [_ranks_torchrun], "LOCAL_RANK": [_ranks_torchrun],
    "LOCAL_WORLD_SIZE": [_ranks_torchrun, _in_process(agt.num_workers)],
    "MASTER_ADDR": [_ranks_torchrun], "MASTER_PORT": [_ranks_torchrun, _ranks_srun],
    "SLURM_JOB_ID": [_ranks_srun], "SLURM_JOB_NODELIST": [_ranks_srun],
    "SLURM_STEP_NODELIST": [_ranks_srun], "SLURM_PROCID": [_ranks_srun],
    "SLURM_LOCALID": [_ranks_srun], "SLURM_STEP_NUM_TASKS": [_ranks_srun],
    "SLURM_STEP_NUM_NODES": [_ranks_srun], "SLURM_NNODES": [_ranks_srun],
    "SLURM_NTASKS": [_batch_script], "SLURM_NPROCS": [_batch_script],
    # Read while joining torchrun's store: judged by the same helpers.
    "TORCHELASTIC_USE_AGENT_STORE": [lambda n, r: value(n, {n: r})],
    "TORCHELASTIC_RESTART_COUNT": [lambda n, r: integer(n, 0, {n: r})],
    # Read by anygpu.torch._beats under run --debug-hangs, by the same helpers.
    "ANYGPU_HANG_DIR": [lambda n, r: value(n, {n: r})],
    "ANYGPU_HANG_SECONDS": [lambda n, r: integer(n, 300, {n: r})],
}
NOT_JUDGED = {"ANYGPU_LIBRARY", "CXX"}  # ANYGPU_LIBRARY: below; CXX: any value


def test_every_python_variable_has_a_reader():
    python_rows = {r["name"] for r in TABLE if "python" in r["readers"] and not r["steers"]}
    assert python_rows == set(PYTHON_READERS) | NOT_JUDGED


@pytest.mark.parametrize("name", sorted(PYTHON_READERS))
def test_python_readers_refuse_what_the_table_refuses(name, isolated, tmp_path):
    for raw in samples(ROWS[name], tmp_path):
        expected = verdict(name, raw)
        for reader in PYTHON_READERS[name]:
            isolated.delenv(name, raising=False)
            args = (name, raw, isolated) if reader.__code__.co_argcount == 3 else (name, raw)
            try:
                reader(*args)
                got = None
            except anygpu.InvalidEnvironmentError as e:
                got = str(e)
            case = f"{name}={raw!r} via {reader.__name__}: table {expected!r}, python {got!r}"
            if expected is not None:
                assert got == expected, case
            else:  # accepted: whatever else goes wrong, it is not this value's refusal
                assert got is None or not got.startswith(f'{name}="'), case


@pytest.mark.parametrize("raw", ["", "  ", "\t"])
def test_an_unusable_library_name_is_refused_in_the_tables_words(raw):
    expected = verdict("ANYGPU_LIBRARY", raw)
    assert expected and refused_library(raw) == expected
    text = run_python("""
try:
    import anygpu
except ImportError as e:
    print(e)
""", ANYGPU_LIBRARY=raw).stdout
    assert expected in text, text
    assert verdict("ANYGPU_LIBRARY", LIBRARY) is None and refused_library(LIBRARY) is None


# --- what the CLI reads inside a Slurm allocation and for select ------------------------------

SLURM = {"SLURM_JOB_ID": "1", "SLURM_JOB_NODELIST": "n1", "SLURM_NTASKS": "1",
         "SLURM_PROCID": "0"}
CLI_READERS = {
    **{n: ["run"] for n in ("SLURM_JOB_ID", "SLURM_JOB_NODELIST", "SLURM_NODELIST",
                            "SLURM_STEP_NODELIST", "SLURM_PROCID", "SLURM_LOCALID",
                            "SLURM_NODEID", "SLURM_NTASKS", "SLURM_NPROCS", "SLURM_NNODES",
                            "SLURM_JOB_NUM_NODES", "SLURM_NTASKS_PER_NODE",
                            "SLURM_TASKS_PER_NODE", "SLURM_STEP_TASKS_PER_NODE",
                            "SLURM_STEP_GPUS", "SLURM_JOB_GPUS", "MASTER_PORT")},
    "LOCAL_WORLD_SIZE": ["select"],
    "ANYGPU_LOCK_DIR": ["run-lock"],
    "SLURMD_NODENAME": ["health --slurm"],
    "ANYGPU_DOCKER_ROOT": ["image check"],
    "ANYGPU_CACHE_DIR": ["image check"],
}
NOT_REFUSED = {"NO_COLOR", "PATH", "LD_LIBRARY_PATH", "ROCR_VISIBLE_DEVICES",
               "XDG_RUNTIME_DIR", "CONTAINERS_STORAGE_CONF", "XDG_DATA_HOME", "XDG_CACHE_HOME",
               "HOME", "TMPDIR"}  # any value
# Read by run alone, through launch/slurm_map.cc's own words: the same values, other text.
SAME_VALUES_OTHER_TEXT = {"SLURM_STEP_GPUS", "SLURM_JOB_GPUS"}


def test_every_cli_variable_has_a_reader():
    cli_rows = {r["name"] for r in TABLE if "cli" in r["readers"] and not r["steers"]}
    assert cli_rows == set(CLI_READERS) | NOT_REFUSED


@pytest.mark.parametrize("name", sorted(CLI_READERS))
def test_cli_refuses_what_the_table_refuses(name, tmp_path):
    for raw in samples(ROWS[name], tmp_path):
        expected = verdict(name, raw)
        for command in CLI_READERS[name]:
            if command == "run":
                env = dict(SLURM)
                # An older name is read when the newer one is not set.
                older = {"SLURM_NODELIST": "SLURM_JOB_NODELIST", "SLURM_NPROCS": "SLURM_NTASKS"}
                env.pop(older.get(name, ""), None)
                args = ["--root", FIXTURE, "--no-libs", "run", "--dry-run", "--no-check", "--",
                        "true"]
            elif command == "run-lock":  # read at every run, also one that takes no lock
                env, args = {}, ["--root", FIXTURE, "--no-libs", "run", "--dry-run", "--no-check",
                                 "--", "true"]
            elif command == "image check":  # read once containers-storage lacks the image
                env, args = {}, ["--root", FIXTURE, "--no-libs", "image", "check",
                                 "anygpu-test-not-stored:never"]
            elif command == "health --slurm":
                env, args = {}, ["--root", FIXTURE, "--no-libs", "health", "--slurm", "--dry-run"]
            else:
                env, args = {}, ["--root", FIXTURE, "--no-libs", "select"]
            env[name] = raw
            rc, msg = cli(args, **env)
            case = f"{name}={raw!r} via {command}: table {expected!r}, cli {rc} {msg!r}"
            # run says where the value came from and exits with its own failure code (125).
            context, code = {"run": ("Slurm allocation: ", 125), "run-lock": ("", 125)}.get(
                command, ("", 2))
            if name in SAME_VALUES_OTHER_TEXT:
                assert (expected is not None) == ("is not a GPU index" in msg), case
            elif expected is not None:
                assert rc == code and msg == context + expected, case
            else:
                assert not msg.startswith((f'{context}{name}="', f"{context}{name}: ")), case
        if name == "LOCAL_WORLD_SIZE":  # the C ABI's select reads it as the CLI does
            capi_msg, _ = c_abi("anygpu_select_json", {"root": FIXTURE, "no_libs": True},
                                **{name: raw})
            case = f"{name}={raw!r} via anygpu_select_json: table {expected!r}, c-abi {capi_msg!r}"
            if expected is not None:
                assert capi_msg == expected, case
            else:
                assert not capi_msg.startswith(f'{name}="'), case


# --- one table: the sources read nothing else, the docs show exactly it -----------------------

def _names_read(root, patterns):
    found = set()
    for dirpath, _, files in os.walk(root):
        for f in files:
            if f.endswith((".cc", ".h", ".py")):
                text = open(os.path.join(dirpath, f), encoding="utf-8").read()
                for p in patterns:
                    for m in re.finditer(p, text):
                        found |= set(re.findall(r'"([A-Z][A-Z0-9_]*)"', m.group(0)))
    return found


def test_every_variable_the_sources_read_is_in_the_table():
    cpp = _names_read(os.path.join(REPO, "src"), [
        r'(?:getenv|read_env)\("[A-Z_]+"\)', r'env(?:ironment)?\.(?:find|count|at)\("[A-Z_]+"\)',
        r'get\(env, "[A-Z_]+"\)', r'(?:first_set|int_var)\(env, \{[^}]*\}'])
    py = _names_read(os.path.join(REPO, "python", "anygpu"), [
        r'(?:environ|env)\.get\("[A-Z_]+"', r'(?:integer|value)\("[A-Z_]+"', r'"[A-Z_]+" in env'])
    assert cpp and py
    assert (cpp | py) - set(ROWS) == set()


def test_docs_show_the_table():
    doc = open(os.path.join(REPO, "docs", "environment.md"), encoding="utf-8").read()
    rows = re.findall(r"^\| `([A-Z][A-Z0-9_]*)` \| ([^|]*) \| ([^|]*) \| ([^|]*) \|$", doc, re.M)
    shown = {name: (readers.strip(), accepted.strip(), meaning.strip())
             for name, readers, accepted, meaning in rows}
    expected = {r["name"]: (", ".join(r["readers"]), r["accepted"].replace("|", "\\|"),
                            r["meaning"].replace("|", "\\|")) for r in TABLE}
    missing = "\n".join(f"| `{n}` | {' | '.join(v)} |" for n, v in expected.items()
                        if shown.get(n) != v)
    assert shown == expected, f"docs/environment.md differs from the table; its rows:\n{missing}"
