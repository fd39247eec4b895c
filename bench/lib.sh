# shellcheck shell=bash
# Shared by the benchmarks that run a mock vendor library through the production load path.

# need_files SCRIPT FILE…: exit 2 naming the first FILE not built, or hyperfine missing.
need_files() {
  local script=$1 f
  shift
  for f in "$@"; do [[ -e $f ]] || { echo "$script: $f not built" >&2; exit 2; }; done
  command -v hyperfine >/dev/null || { echo "$script: hyperfine missing" >&2; exit 2; }
}

# fixture_with_library REPO HOST MOCK SONAME DEST: a copy of tests/hosts/HOST at DEST with MOCK
# installed as the vendor's library SONAME where the loader finds it.
fixture_with_library() {
  local repo=$1 host=$2 mock=$3 soname=$4 dest=$5
  cp -a "$repo/tests/hosts/$host" "$dest"
  mkdir -p "$dest/usr/lib/x86_64-linux-gnu"
  cp "$mock" "$dest/usr/lib/x86_64-linux-gnu/$soname"
}
