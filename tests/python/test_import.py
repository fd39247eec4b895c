"""`import anygpu` needs neither torch nor a compiler, and never imports torch."""
import json

from conftest import LIBRARY, run_python

BLOCK_TORCH = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ImportError("torch is blocked by this test")
sys.meta_path.insert(0, Block())
"""


def test_import_without_torch_importable():
    out = run_python(BLOCK_TORCH + """
import json, sys, anygpu
doc = anygpu.detect(no_libs=True)
print(json.dumps({"torch": "torch" in sys.modules, "schema": doc["schema"],
                  "version": anygpu.__version__, "library": anygpu.library_path}))
""")
    got = json.loads(out.stdout)
    assert got["torch"] is False
    assert got["schema"] == "anygpu.inventory/v1"
    assert got["library"] == LIBRARY
    assert got["version"].count(".") == 2


def test_import_does_not_import_torch_even_when_installed():
    out = run_python("""
import sys, anygpu
anygpu.select()
before = "torch" in sys.modules
import anygpu.torch
print(before, "torch" in sys.modules, anygpu.torch.__name__)
""")
    assert out.stdout.split() == ["False", "True", "anygpu.torch"]


def test_torch_submodule_is_lazy_attribute():
    out = run_python("""
import sys, anygpu
print("anygpu.torch" in sys.modules)
m = anygpu.torch
print("anygpu.torch" in sys.modules, callable(m.device))
""")
    assert out.stdout.split() == ["False", "True", "True"]


def test_anygpu_torch_without_torch_is_a_clear_import_error():
    out = run_python(BLOCK_TORCH + """
import anygpu
try:
    import anygpu.torch
except ImportError as e:
    print("ImportError:", e)
""")
    assert "ImportError: torch is blocked by this test" in out.stdout


def test_no_compiled_extension_in_the_package():
    import importlib.machinery
    import os
    from conftest import REPO
    pkg = os.path.join(REPO, "python", "anygpu")
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES) + (".c", ".cc", ".cpp", ".pyx")
    built = [f for _, _, files in os.walk(pkg) for f in files
             if f.endswith(suffixes) and f != "libanygpu.so"]
    assert built == []
