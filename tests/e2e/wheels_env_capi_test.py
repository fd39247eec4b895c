#!/usr/bin/python3
"""ANYGPU_WHEELS through the C ABI: a valid table is taken (detect answers), an invalid one makes
every call return the error document naming the variable and FILE:LINE:COLUMN, as the CLI exits 2.
Each case runs in a fresh process: the table is read once per process.

    wheels_env_capi_test.py LIBANYGPU SOURCE_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

CHILD = r"""
import ctypes, json, sys
lib = ctypes.CDLL(sys.argv[1])
lib.anygpu_detect_json.restype = ctypes.c_void_p
lib.anygpu_detect_json.argtypes = [ctypes.c_char_p]
lib.anygpu_free.argtypes = [ctypes.c_void_p]
p = lib.anygpu_detect_json(json.dumps({"root": sys.argv[2], "no_libs": True}).encode())
print(ctypes.string_at(p).decode())
lib.anygpu_free(p)
"""


def detect(lib, root, wheels):
    env = dict(os.environ, ANYGPU_WHEELS=wheels)
    out = subprocess.run([sys.executable, "-c", CHILD, lib, root], env=env, check=True,
                         capture_output=True, text=True, timeout=120).stdout
    return json.loads(out)


def main():
    lib, src = sys.argv[1], sys.argv[2]
    root = os.path.join(src, "tests/hosts/h100-8x")
    fail = 0
    with tempfile.TemporaryDirectory() as tmp:
        good = os.path.join(tmp, "wheels.yaml")
        with open(os.path.join(src, "data/wheels.yaml")) as f:
            text = f.read()
        with open(good, "w") as f:
            f.write(text)
        doc = detect(lib, root, good)
        if "error" in doc or not doc.get("devices"):
            print("FAIL valid ANYGPU_WHEELS: %s" % str(doc)[:300])
            fail = 1
        else:
            print("ok   valid ANYGPU_WHEELS: detect answers")
        bad = os.path.join(tmp, "bad.yaml")
        with open(bad, "w") as f:
            f.write(text.replace("arches: *maxwell_to_hopper}", "arches: [sm50]}", 1))
        doc = detect(lib, root, bad)
        if doc.get("schema") != "anygpu.error/v1" or doc.get("variable") != "ANYGPU_WHEELS" \
                or doc.get("exit_code") != 2:
            print("FAIL invalid ANYGPU_WHEELS: not refused naming the variable: %s" % doc)
            fail = 1
        elif not str(doc.get("error", "")).startswith("ANYGPU_WHEELS: %s:" % bad):
            print("FAIL invalid ANYGPU_WHEELS: no FILE:LINE:COLUMN: %s" % doc)
            fail = 1
        else:
            print("ok   invalid ANYGPU_WHEELS: %s" % doc["error"])
    return fail


if __name__ == "__main__":
    sys.exit(main())
