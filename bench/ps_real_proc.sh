#!/usr/bin/env bash
# `anygpu ps` over this machine's real /proc while 2,000 extra processes hold 47 descriptors
# each (about 100,000 in all), against a bare C loop making only the system calls any holder
# scan must make (getdents64 per fd directory, readlinkat per descriptor), on one thread and on
# two. The real /proc is bind-mounted beneath a copy of the 8×H100 fixture so the device-node
# set is that fixture's; its links point at /dev/null, so no process is a holder and the run
# measures the scan alone. Needs root (the bind mount) and hyperfine.
# Usage: sudo bench/ps_real_proc.sh [BUILD_DIR]   (prints hyperfine's Markdown table)
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
bin="$build/anygpu"
[[ -x $bin ]] || { echo "bench/ps_real_proc.sh: $bin not built" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "hyperfine missing (apt-get install hyperfine)" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "bench/ps_real_proc.sh: needs root for the bind mount" >&2; exit 2; }
out=$(mktemp -d)
holders=
cleanup() {
  [[ -n $holders ]] && kill -- "-$holders" 2>/dev/null || true
  mountpoint -q "$out/root/proc" && umount "$out/root/proc"
  rm -rf "$out"
}
trap cleanup EXIT

cat >"$out/holders.c" <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char** argv) {
  int procs = atoi(argv[1]), fds = atoi(argv[2]);
  for (int p = 0; p < procs; ++p)
    if (fork() == 0) {
      for (int i = 0; i < fds; ++i) open("/dev/null", O_RDONLY);
      pause();
      _exit(0);
    }
  puts("ready");
  fflush(stdout);
  pause();
}
C
cat >"$out/scan.c" <<'C'
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
static int pids[1 << 17], npids, nthreads;
struct d64 { unsigned long ino; long off; unsigned short reclen; unsigned char type; char name[]; };
static void* run(void* arg) {
  char buf[32768], path[64], link[256];
  for (int i = (int)(long)arg; i < npids; i += nthreads) {
    snprintf(path, sizeof path, "/proc/%d/fd", pids[i]);
    int dfd = open(path, O_RDONLY | O_DIRECTORY);
    if (dfd < 0) continue;
    for (long n; (n = syscall(SYS_getdents64, dfd, buf, sizeof buf)) > 0;)
      for (long off = 0; off < n;) {
        struct d64* d = (struct d64*)(buf + off);
        off += d->reclen;
        if (d->name[0] != '.') readlinkat(dfd, d->name, link, sizeof link);
      }
    close(dfd);
  }
  return 0;
}
int main(int argc, char** argv) {
  nthreads = atoi(argv[1]);
  DIR* p = opendir("/proc");
  for (struct dirent* e; (e = readdir(p)) && npids < (1 << 17);)
    if (e->d_name[0] >= '0' && e->d_name[0] <= '9') pids[npids++] = atoi(e->d_name);
  pthread_t th[16];
  for (long t = 0; t < nthreads; ++t) pthread_create(&th[t], 0, run, (void*)t);
  for (int t = 0; t < nthreads; ++t) pthread_join(th[t], 0);
}
C
cc -O2 -o "$out/holders" "$out/holders.c"
cc -O2 -pthread -o "$out/scan" "$out/scan.c"

ulimit -n 4096
setsid "$out/holders" 2000 47 >"$out/ready" &
holders=$!
for _ in $(seq 100); do [[ -s $out/ready ]] && break; sleep 0.1; done
cp -a "$here/tests/hosts/h100-8x" "$out/root"
rm -rf "$out/root/proc" && mkdir "$out/root/proc"
mount --bind /proc "$out/root/proc"
fds=$(find /proc/[0-9]*/fd -mindepth 1 2>/dev/null | wc -l)
echo "real /proc: $(ls -d /proc/[0-9]* | wc -l) processes, $fds descriptors; load $(cut -d' ' -f1 /proc/loadavg)"
hyperfine -N -w 3 -r 40 --export-markdown /dev/stdout \
  --command-name "anygpu ps --json (real /proc)" "$bin --root $out/root --no-libs --json ps" \
  ${ANYGPU_PS_PEER:+--command-name "anygpu ps --json, peer binary" "$ANYGPU_PS_PEER --root $out/root --no-libs --json ps"} \
  --command-name "C loop: getdents64 + readlinkat, 1 thread" "$out/scan 1" \
  --command-name "C loop, 2 threads" "$out/scan 2" >"$out/table"
grep '^|' "$out/table"
