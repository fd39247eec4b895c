#!/usr/bin/env bash
# `anygpu run --nproc-per-node N` stays the parent of its torchrun: a stand-in torchrun on PATH
# starts two "workers", each with a helper that leaves the process group for a session of its
# own. SIGTERM (and SIGINT, SIGHUP) to anygpu reaches the whole tree and no descendant
# survives; what a launch leaves behind after a normal exit is ended too; the exit status and
# the signal are the command's.
set -u
set -m  # background jobs keep SIGINT (a script without job control starts them ignoring it)
bin=$(realpath "$1")
hosts=$(realpath "$2")
fail=0
tmp=$(mktemp -d)
pids_to_clean=()
cleanup() {
  for p in "${pids_to_clean[@]}"; do kill -KILL "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp" || exit 1
mkdir bin
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

# The stand-in: each worker writes its pid and its helper's; the helper calls setsid, so a
# signal to torchrun's group misses it, as it would miss a worker's own child under a torchrun
# that starts workers in sessions of their own.
cat >bin/torchrun <<'SH'
#!/bin/sh
echo $$ >"$TREE/torchrun.pid"
for rank in 0 1; do
  /bin/sh -c 'setsid sleep 300 & echo $! >"$TREE/helper-$1.pid"; echo $$ >"$TREE/worker-$1.pid"; sleep 300' worker "$rank" &
done
case "${TORCHRUN_MODE:-wait}" in
  leave)  # workers and helpers left behind, and a status of its own
    while [ "$(ls "$TREE" | wc -l)" -lt 5 ]; do sleep 0.05; done
    exit 7 ;;
  *) wait ;;
esac
SH
chmod +x bin/torchrun

launch() {  # launch MODE: starts anygpu in the background, sets $anygpu
  rm -f tree/*.pid
  mkdir -p tree
  TREE="$tmp/tree" TORCHRUN_MODE="$1" PATH="$tmp/bin:$PATH" \
    "$bin" --root "$hosts/cloud-vm-none" --no-libs run --no-check --nproc-per-node 2 \
    -- worker.py >"$tmp/out" 2>"$tmp/err" &
  anygpu=$!
}

wait_for_tree() {  # every pid file written
  for _ in $(seq 1 200); do
    local n
    n=$(ls tree 2>/dev/null | wc -l)
    [ "$n" -ge 5 ] && return 0
    sleep 0.05
  done
  return 1
}

# Ended: gone, or a zombie its new parent has not reaped yet.
ended() {
  local state
  state=$(sed -n 's/^[0-9]* (.*) \([A-Za-z]\) .*/\1/p' "/proc/$1/stat" 2>/dev/null)
  [ -z "$state" ] || [ "$state" = Z ] || [ "$state" = X ]
}

check_tree_gone() {  # check_tree_gone CASE
  local survivors=""
  for f in tree/*.pid; do
    local pid
    pid=$(cat "$f")
    pids_to_clean+=("$pid")
    ended "$pid" || survivors="$survivors $(basename "$f" .pid)=$pid"
  done
  if [ -z "$survivors" ]; then ok "$1: no descendant survives"; else bad "$1: survivors:$survivors"; ps -o pid,ppid,pgid,sid,stat,cmd -p "$(cat tree/*.pid | paste -sd,)"; fi
}

for sig in TERM INT HUP; do
  launch wait
  if ! wait_for_tree; then bad "$sig: the stand-in tree did not start"; cat "$tmp/err"; continue; fi
  kill "-$sig" "$anygpu"
  wait "$anygpu"
  rc=$?
  want=$((128 + $(kill -l "$sig")))
  [ "$rc" = "$want" ] && ok "SIG$sig: anygpu ends as torchrun did ($rc)" || { bad "SIG$sig: exit $rc, expected $want"; cat "$tmp/err"; }
  check_tree_gone "SIG$sig"
done

launch leave
wait "$anygpu"
rc=$?
[ "$rc" = 7 ] && ok "torchrun's exit status passes through" || { bad "exit $rc, expected 7"; cat "$tmp/err"; }
if wait_for_tree; then check_tree_gone "normal exit"; else bad "normal exit: the tree did not start"; fi

# torchrun not on PATH: 127 as for any command, after saying so.
PATH="/nonexistent" "$bin" --root "$hosts/cloud-vm-none" --no-libs run --no-check \
  --nproc-per-node 2 -- worker.py 2>"$tmp/err"
rc=$?
[ "$rc" = 127 ] && grep -q "torchrun: command not found" "$tmp/err" && ok "no torchrun: 127" ||
  { bad "no torchrun: exit $rc"; cat "$tmp/err"; }
exit $fail
