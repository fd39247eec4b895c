#!/usr/bin/env bash
# `anygpu top` in a real terminal (tmux): all eight MI300X devices on screen, q quits, the
# terminal is restored; without a terminal it prints plain snapshots.
set -u
bin=$(realpath "$1")
hosts=$(realpath "$2")
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
command -v tmux >/dev/null || { echo "FAIL: tmux is required"; exit 1; }
tmp=$(mktemp -d)
sock="$tmp/tmux.sock"  # a private server: never touches the user's sessions
session=anygpu-metrics-top
cleanup() { tmux -S "$sock" kill-server 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

tmux -S "$sock" new-session -d -s $session -x 120 -y 40 \
  "NO_COLOR=1 '$bin' --root '$hosts/mi300x-8x' top --interval 0.5; echo exited-\$?; sleep 30"
screen=""
for _ in $(seq 50); do
  screen=$(tmux -S "$sock" capture-pane -p -t $session)
  [ "$(grep -c 'GPU\[' <<<"$screen")" = 8 ] && break
  sleep 0.2
done
[ "$(grep -c 'GPU\[' <<<"$screen")" = 8 ] && ok "8 devices on screen" || { bad "devices on screen"; echo "$screen"; }
for bus in 05 26 46 65 85 a6 c6 e5; do
  grep -q "0000:$bus:00.0  AMD Instinct MI300X" <<<"$screen" || bad "device 0000:$bus:00.0 missing"
done
grep -q 'GPU\[|\{10,\}100%\]' <<<"$screen" && ok "full bar for the busy GPU" || { bad "100% bar"; echo "$screen"; }
grep -q '41C\]' <<<"$screen" && ok "temperature bar" || bad "temperature bar"
tmux -S "$sock" send-keys -t $session q
exited=""
for _ in $(seq 50); do
  exited=$(tmux -S "$sock" capture-pane -p -t $session | grep -o 'exited-[0-9]*')
  [ -n "$exited" ] && break
  sleep 0.1
done
[ "$exited" = exited-0 ] && ok "q quits with exit 0" || { bad "q did not quit ($exited)"; tmux -S "$sock" capture-pane -p -t $session; }
# Back on the normal screen: the pane shows the shell line, not the bars.
after=$(tmux -S "$sock" capture-pane -p -t $session)
grep -q 'GPU\[' <<<"$after" && bad "alternate screen not left" || ok "terminal restored"

# SIGTERM restores the terminal too. The second session starts before the first is killed:
# killing a server's last session ends the server, and a session started meanwhile can land on
# the exiting server and vanish with it.
tmux -S "$sock" new-session -d -s t2 -x 100 -y 30 \
  "'$bin' --root '$hosts/mi300x-8x' top; echo exited-\$?; stty -a | grep -o ' icanon\| -icanon'; sleep 30"
tmux -S "$sock" kill-session -t $session 2>/dev/null
sleep 1.5
pkill_target=$(tmux -S "$sock" list-panes -t t2 -F '#{pane_pid}')
top_pid=$(pgrep -P "$pkill_target" -f 'anygpu' | head -1)
[ -n "$top_pid" ] && kill -TERM "$top_pid"
sleep 1
out=$(tmux -S "$sock" capture-pane -p -t t2)
grep -q 'exited-0' <<<"$out" && ok "SIGTERM exits 0" || { bad "SIGTERM"; echo "$out"; }
grep -q ' icanon' <<<"$out" && ok "SIGTERM restores canonical mode" || { bad "tty mode after SIGTERM"; echo "$out"; }

# Not a terminal: plain snapshots.
"$bin" --root "$hosts/mi300x-8x" top -n 2 --interval 0.2 >"$tmp/plain.txt" </dev/null
[ $? = 0 ] && ok "plain exit 0" || bad "plain exit"
[ "$(grep -c '0000:05:00.0' "$tmp/plain.txt")" = 2 ] && ok "two plain snapshots" || { bad "plain snapshots"; cat "$tmp/plain.txt"; }
grep -q $'\x1b' "$tmp/plain.txt" && bad "escape codes in plain output" || ok "no escapes when not a terminal"
exit $fail
