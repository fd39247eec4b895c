#!/usr/bin/env bash
# Host strings never reach the terminal as control sequences: a fixture whose os-release name,
# CDI spec file name and CDI kind carry ESC, BEL and C1 bytes, through every human output that
# shows them (detect, cdi list, doctor); the same strings arrive escaped (\x1b), not dropped.
set -u
bin=$1
hosts=$2
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
host="$tmp/host"
cp -a "$hosts/h100-8x" "$host"
esc=$'\x1b'
sed -i "s/^PRETTY_NAME=.*/PRETTY_NAME=\"Ubuntu${esc}]0;owned${esc}\\\\${esc}[2J\"/" "$host/etc/os-release"
mkdir -p "$host/etc/cdi"
"$bin" --root "$host" --no-libs cdi generate >"$tmp/spec.yaml" 2>/dev/null
cp "$tmp/spec.yaml" "$host/etc/cdi/evil${esc}[1Aname"$'\a'".yaml"

clean() {  # clean NAME FILE: no ESC, BEL or C1 CSI byte in FILE
  if LC_ALL=C grep -q $'[\x1b\x07]\|\xc2\x9b' "$2"; then
    echo "FAIL $1: a raw control byte reached the terminal:"; od -c "$2" | grep -m3 '033\|\\a'
    fail=1
  else
    echo "ok   $1"
  fi
}
shows() {  # shows NAME FILE TEXT: the escaped form is there
  if grep -qF -- "$3" "$2"; then echo "ok   $1 shows $3"; else
    echo "FAIL $1: lacks '$3'"; head -20 "$2"; fail=1; fi
}

"$bin" --root "$host" --no-libs detect >"$tmp/detect" 2>&1
clean "detect" "$tmp/detect"
shows "detect" "$tmp/detect" 'Ubuntu\x1b]0;owned'
"$bin" --root "$host" --no-libs cdi list >"$tmp/cdi" 2>&1
clean "cdi list" "$tmp/cdi"
shows "cdi list" "$tmp/cdi" 'evil\x1b[1Aname\x07.yaml'
"$bin" --root "$host" --no-libs doctor >"$tmp/doctor" 2>&1
clean "doctor" "$tmp/doctor"
# JSON keeps the bytes as JSON escapes (\u001b), which a terminal does not act on.
"$bin" --root "$host" --no-libs detect --json >"$tmp/json" 2>&1
clean "detect --json" "$tmp/json"
exit $fail
