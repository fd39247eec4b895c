#!/usr/bin/env bash
# The man pages and completions the build wrote from the command table: one page per command
# of `anygpu --help-dump` (and no other), each renders with `man -l` without a warning, and
# each completion script loads in its own shell (bash, zsh, fish) and completes a command, a
# nested command and an option.
# usage: cli_docs_test.sh ANYGPU CLI_DOCS_DIR
set -u
bin=$1
docs=$2
fail=0
bad() { echo "FAIL: $*"; fail=1; }
for tool in man bash zsh fish; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool is required (make test installs it)"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

commands=$("$bin" --help-dump | /usr/bin/python3 -c 'import json,sys; print(" ".join(c["name"] for c in json.load(sys.stdin)["commands"]))')
[ -n "$commands" ] || bad "--help-dump lists no command"
expected="anygpu.1.gz"
for c in $commands; do expected="$expected anygpu-$c.1.gz"; done
got=$(cd "$docs/man" && ls | sort | tr '\n' ' ')
want=$(echo $expected | tr ' ' '\n' | sort | tr '\n' ' ')
[ "$got" = "$want" ] || bad "man pages: got [$got], the table gives [$want]"

for page in "$docs"/man/*.1.gz; do
  # --warnings: groff reports every problem it sees; any line on stderr is a defect.
  MANWIDTH=80 man --warnings -l "$page" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ $rc != 0 ] || [ -s "$tmp/err" ]; then bad "man -l $(basename "$page") (exit $rc): $(head -5 "$tmp/err")"; fi
  name=$(basename "$page" .1.gz)
  grep -q "^NAME" "$tmp/out" && grep -q "SYNOPSIS" "$tmp/out" || bad "$name: no NAME/SYNOPSIS"
done
# The main page names every command; each command page names its own options.
MANWIDTH=200 man -l "$docs/man/anygpu.1.gz" 2>/dev/null >"$tmp/main"
for c in $commands; do grep -q "anygpu-$c(1)" "$tmp/main" || bad "anygpu(1) does not list $c"; done
MANWIDTH=200 man -l "$docs/man/anygpu-detect.1.gz" 2>/dev/null | grep -q -- "--require-gpu" \
  || bad "anygpu-detect(1) lacks --require-gpu"
MANWIDTH=200 man -l "$docs/man/anygpu-cdi.1.gz" 2>/dev/null | grep -q "CDI GENERATE" \
  || bad "anygpu-cdi(1) lacks its generate subcommand"

# bash: the function bash-completion would call, with the words a user typed.
complete_bash() {
  bash --norc --noprofile -c '
    source "$1" || exit 1
    complete -p anygpu >/dev/null || exit 1
    shift
    COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    _anygpu; printf "%s\n" "${COMPREPLY[@]}"' _ "$docs/completions/anygpu.bash" "$@"
}
complete_bash anygpu de | grep -qx detect || bad "bash: anygpu de<TAB> does not give detect"
complete_bash anygpu cdi ge | grep -qx generate || bad "bash: anygpu cdi ge<TAB> does not give generate"
complete_bash anygpu detect --req | grep -qx -- --require-gpu || bad "bash: detect --req<TAB>"
complete_bash anygpu select --format "" | sort | tr '\n' ' ' | grep -q "dotenv json shell" \
  || bad "bash: select --format <TAB> should offer the formats: $(complete_bash anygpu select --format "" | tr '\n' ' ')"
complete_bash anygpu --root /tmp detect --js | grep -qx -- --json || bad "bash: a global option after --root DIR"

# zsh: the file loads both ways (autoloaded from fpath, sourced) and completes.
zsh -f -c "fpath=($docs/completions \$fpath); autoload -Uz compinit && compinit -u -d $tmp/zcompdump && autoload -Uz _anygpu && whence -w _anygpu" \
  | grep -q "function" || bad "zsh: _anygpu does not autoload"
zsh -f -c "source $docs/completions/_anygpu && _anygpu_candidates cdi" | tr ' ' '\n' | grep -qx generate \
  || bad "zsh: cdi does not offer generate"
zsh -f -c "source $docs/completions/_anygpu && _anygpu_candidates" | tr ' ' '\n' | grep -qx detect \
  || bad "zsh: no detect at the top level"

# fish: its own completion engine (complete -C) on the loaded script.
fish --no-config -c "source $docs/completions/anygpu.fish; complete -C 'anygpu de'" | cut -f1 \
  | grep -qx detect || bad "fish: anygpu de<TAB>"
fish --no-config -c "source $docs/completions/anygpu.fish; complete -C 'anygpu cdi '" | cut -f1 \
  | grep -qx generate || bad "fish: anygpu cdi <TAB>"
fish --no-config -c "source $docs/completions/anygpu.fish; complete -C 'anygpu detect --req'" | cut -f1 \
  | grep -qx -- --require-gpu || bad "fish: anygpu detect --req<TAB>"

[ $fail = 0 ] && echo "PASS: man pages and completions"
exit $fail
