"""Finding libanygpu.so: the search order, and a clear ImportError naming every path tried."""
import os
import shutil

import pytest

from conftest import LIBRARY, REPO, run_python


def _import_error(**env) -> str:
    out = run_python("""
try:
    import anygpu
except ImportError as e:
    print(type(e).__name__, isinstance(e, ImportError))
    print(e)
else:
    print("imported from", anygpu.library_path)
""", **env)
    return out.stdout


def test_missing_explicit_library(tmp_path):
    missing = tmp_path / "nowhere" / "libanygpu.so"
    text = _import_error(ANYGPU_LIBRARY=missing)
    assert text.startswith("LibraryNotFoundError True")
    assert f"{missing} (not found)" in text
    assert "ANYGPU_LIBRARY" in text


def test_garbage_file_is_rejected_with_the_loader_message(tmp_path):
    bad = tmp_path / "libanygpu.so"
    bad.write_text("not an ELF file\n")
    text = _import_error(ANYGPU_LIBRARY=bad)
    assert text.startswith("LibraryNotFoundError True")
    assert str(bad) in text and ("invalid ELF header" in text or "file too short" in text)


def test_wrong_library_lacking_the_symbols(tmp_path):
    import ctypes.util
    libm = ctypes.util.find_library("m")
    assert libm, "libm not found by ctypes.util"
    text = _import_error(ANYGPU_LIBRARY=libm)
    assert "not libanygpu: lacks anygpu_detect_json" in text


def _copy_package(dest):
    shutil.copytree(os.path.join(REPO, "python", "anygpu"), dest,
                    ignore=shutil.ignore_patterns("__pycache__"))


def test_search_order_without_override_names_every_candidate(tmp_path):
    _copy_package(tmp_path / "src" / "python" / "anygpu")
    out = run_python("""
try:
    import anygpu
except ImportError as e:
    print(e)
""", ANYGPU_LIBRARY=None, PYTHONPATH=tmp_path / "src" / "python", LD_LIBRARY_PATH=None)
    lines = [ln.strip() for ln in out.stdout.splitlines()]
    beside = str(tmp_path / "src" / "python" / "anygpu" / "libanygpu.so")
    tree = str(tmp_path / "src" / "build" / "libanygpu.so")
    assert lines[1:3] == [f"{beside} (not found)", f"{tree} (not found)"]
    # The system linker path, last: the installed SONAME first, then the development link.
    assert lines[3].startswith("libanygpu.so.0 (")
    assert lines[4].startswith("libanygpu.so (")


def test_library_beside_the_package_wins(tmp_path):
    pkg = tmp_path / "src" / "python" / "anygpu"
    _copy_package(pkg)
    shutil.copy(LIBRARY, pkg / "libanygpu.so")
    (tmp_path / "src" / "build").mkdir()
    (tmp_path / "src" / "build" / "libanygpu.so").write_text("garbage: must not be tried\n")
    out = run_python("import anygpu; print(anygpu.library_path)", ANYGPU_LIBRARY=None,
                     PYTHONPATH=tmp_path / "src" / "python")
    assert out.stdout.strip() == str(pkg / "libanygpu.so")


def test_build_tree_of_the_checkout(tmp_path):
    _copy_package(tmp_path / "src" / "python" / "anygpu")
    (tmp_path / "src" / "build").mkdir()
    shutil.copy(LIBRARY, tmp_path / "src" / "build" / "libanygpu.so")
    out = run_python("import anygpu; print(anygpu.library_path)", ANYGPU_LIBRARY=None,
                     PYTHONPATH=tmp_path / "src" / "python")
    assert out.stdout.strip() == str(tmp_path / "src" / "build" / "libanygpu.so")


def test_system_soname_through_ld_library_path(tmp_path):
    _copy_package(tmp_path / "src" / "python" / "anygpu")
    (tmp_path / "lib").mkdir()
    shutil.copy(LIBRARY, tmp_path / "lib" / "libanygpu.so")
    out = run_python("import anygpu; print(anygpu.library_path)", ANYGPU_LIBRARY=None,
                     PYTHONPATH=tmp_path / "src" / "python", LD_LIBRARY_PATH=tmp_path / "lib")
    assert out.stdout.strip() == "libanygpu.so"


@pytest.mark.parametrize("bad", ["", "   "])
def test_empty_override_is_not_a_silent_fallback(bad):
    text = _import_error(ANYGPU_LIBRARY=bad)
    assert text.startswith("LibraryNotFoundError True")
