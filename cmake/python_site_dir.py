"""Where the Python package goes beneath an install prefix, asked of the interpreter that will
import it. Run as `PYTHON -E -s python_site_dir.py PREFIX` (-E -s: PYTHONPATH and the user's
site directory must not make a directory look importable when it is not).

Prints two lines: the directory (absolute), and `on-path` when the interpreter imports from it
as it starts, else `off-path`.

The interpreter's own install schemes, most specific first, each checked against its sys.path:
  - its venv, when PREFIX is that venv (PREFIX/lib/python3.X/site-packages);
  - Debian's deb_system (/usr/lib/python3/dist-packages, only for PREFIX=/usr) and posix_local
    (/usr/local/lib/python3.X/dist-packages: Debian's python3 reads no site-packages beneath
    /usr/local);
  - posix_prefix beneath PREFIX (PREFIX/lib/python3.X/site-packages: other distributions, and
    any prefix the interpreter was built for).
The first that lies beneath PREFIX and on the interpreter's path wins: sys.path, and the site
directories site.py would add if they existed (it skips missing ones, and a first install
creates them). None: posix_prefix beneath PREFIX, which the interpreter reads only through
PYTHONPATH (off-path).
"""
import os
import site
import sys
import sysconfig


def _real(path):
    return os.path.realpath(path)


def _beneath(path, prefix):
    path, prefix = _real(path), _real(prefix)
    return path == prefix or path.startswith(prefix.rstrip("/") + "/")


def candidates(prefix):
    schemes = sysconfig.get_scheme_names()
    here = {"base": prefix, "platbase": prefix, "installed_base": prefix,
            "installed_platbase": prefix}
    if sys.prefix != sys.base_prefix and _real(sys.prefix) == _real(prefix):
        yield sysconfig.get_path("purelib")  # the venv's own scheme
    if "deb_system" in schemes:
        yield sysconfig.get_path("purelib", "deb_system", vars=here)
    if "posix_local" in schemes:
        # {base}/local/lib/…: relative to the interpreter's own base, as Debian's site.py adds it.
        yield sysconfig.get_path("purelib", "posix_local")
    yield posix_prefix(prefix)


def posix_prefix(prefix):
    return sysconfig.get_path("purelib", "posix_prefix", vars={"base": prefix, "platbase": prefix})


def main():
    if len(sys.argv) != 2 or not os.path.isabs(sys.argv[1]):
        sys.exit("usage: python_site_dir.py ABSOLUTE_PREFIX")
    prefix = os.path.normpath(sys.argv[1])
    on_path = {_real(p) for p in sys.path + site.getsitepackages() if p}
    for path in candidates(prefix):
        if _beneath(path, prefix) and _real(path) in on_path:
            print(path)
            print("on-path")
            return
    print(posix_prefix(prefix))
    print("off-path")


if __name__ == "__main__":
    main()
