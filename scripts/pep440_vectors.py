#!/usr/bin/python3
"""Extracts pypa/packaging's own PEP 440 test vectors into a JSON table.

Run by hand when the table is refreshed; the output is reviewed and committed as
tests/contract/pep440/packaging_vectors.json, which the unit tests read.

    scripts/pep440_vectors.py CHECKOUT COMMIT > tests/contract/pep440/packaging_vectors.json

CHECKOUT is a tree of pypa/packaging at COMMIT (its src/ and tests/). The test modules are
executed with a stand-in for pytest that records every @pytest.mark.parametrize table, against
packaging's own src/ of the same commit, so the expected values are the ones upstream wrote.
"""

import json
import os
import sys
import types


def record_parametrize(tables):
    def parametrize(names, values, **_kw):
        def deco(fn):
            key = fn.__qualname__
            if isinstance(names, str):
                cols = [n.strip() for n in names.split(",")]
            else:
                cols = list(names)
            rows = []
            for v in values:
                if isinstance(v, Param):
                    v = v.values if len(v.values) != 1 else v.values[0]
                rows.append(list(v) if len(cols) > 1 else [v])
            tables.setdefault(key, []).append({"columns": cols, "rows": rows})
            return fn
        return deco
    return parametrize


class Param:
    def __init__(self, *values, **_kw):
        self.values = values


def stub_modules(tables):
    pytest = types.ModuleType("pytest")
    mark = types.SimpleNamespace(parametrize=record_parametrize(tables))
    mark.__getattr__ = lambda name: (lambda *a, **k: (lambda f: f))
    pytest.mark = types.SimpleNamespace(
        parametrize=mark.parametrize,
        skipif=lambda *a, **k: (lambda f: f),
        xfail=lambda *a, **k: (lambda f: f),
        filterwarnings=lambda *a, **k: (lambda f: f),
    )
    pytest.param = Param
    pytest.fixture = lambda *a, **k: (a[0] if a and callable(a[0]) else (lambda f: f))
    pytest.raises = None
    sys.modules["pytest"] = pytest
    sys.modules["pretend"] = types.ModuleType("pretend")
    sys.modules["pretend"].stub = lambda **k: types.SimpleNamespace(**k)
    sys.modules["pretend"].call_recorder = lambda f: f


def table(tables, key):
    out = []
    for t in tables.get(key, []):
        out.extend(t["rows"])
    if not out:
        sys.exit("pep440_vectors.py: no parametrize table for %s" % key)
    return out


def jsonable(v):
    if isinstance(v, (str, bool, int)) or v is None:
        return v
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    return None  # callables (operator.lt …) are not part of the table


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    checkout, commit = argv[1], argv[2]
    tables = {}
    stub_modules(tables)
    sys.path[:0] = [os.path.join(checkout, "src"), checkout]
    import tests.test_specifiers  # noqa: F401  (imports tests.test_version)
    import tests.test_version as tv

    contains = [[v, s, e] for v, s, e in table(tables, "TestSpecifier.test_specifiers")]
    contains += [[v, s, e] for s, v, e in table(tables, "TestSpecifier.test_invalid_version")]
    contains += [[v, s, e] for v, s, e in table(tables, "TestSpecifier.test_arbitrary_equality")]
    # Rows whose installed version is a Version object (normalised first) are left out: an
    # installed version reaches anygpu as the text its metadata carries.
    contains += [[v, s, e] for s, v, e in
                 table(tables, "TestSpecifier.test_arbitrary_equality_normalization")
                 if isinstance(v, str)]
    doc = {
        "source": {
            "repository": "pypa/packaging",
            "commit": commit,
            "paths": ["tests/test_version.py", "tests/test_specifiers.py"],
            "extracted_by": "scripts/pep440_vectors.py",
        },
        # In ascending order (test_version.py VERSIONS, "must be in the correct sorting order").
        "ordered_versions": list(tv.VERSIONS),
        "invalid_versions": [r[0] for r in table(tables, "TestVersion.test_invalid_versions")],
        "normalized_versions": [list(r) for r in
                                table(tables, "TestVersion.test_normalized_versions")],
        "valid_specifiers": [r[0] for r in table(tables, "TestSpecifier.test_specifiers_valid")],
        "invalid_specifiers": [r[0] for r in
                               table(tables, "TestSpecifier.test_specifiers_invalid")],
        # [installed version, specifier, expected]
        "contains": [jsonable(r) for r in contains],
    }
    json.dump(doc, sys.stdout, indent=1, ensure_ascii=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
