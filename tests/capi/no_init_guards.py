#!/usr/bin/env python3
"""libanygpu.so must not import __cxa_guard_acquire: a function-local static with a dynamic
initialiser anywhere the C ABI reaches is built under a one-time guard, and a fork() while
another thread holds it leaves the child waiting forever. Such globals are constant-initialised
or kept in a ForkSafeLazy (src/util/fork_safety.h). On failure, names the functions that
still take a guard.

usage: no_init_guards.py LIBANYGPU_SO"""
import re
import subprocess
import sys


def main() -> int:
    lib = sys.argv[1]
    undefined = subprocess.run(["nm", "-D", "--undefined-only", lib], check=True,
                               capture_output=True, text=True).stdout
    if "__cxa_guard_acquire" not in undefined:
        print(f"{lib}: no one-time initialisation guard")
        return 0
    asm = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-C", lib], check=True,
                         capture_output=True, text=True).stdout
    holders, current = set(), "?"
    for line in asm.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if m:
            current = m.group(1)
        elif "__cxa_guard_acquire" in line and "call" in line:
            holders.add(current)
    print(f"{lib}: imports __cxa_guard_acquire; function-local statics with a dynamic "
          "initialiser in:", file=sys.stderr)
    for h in sorted(holders):
        print(f"  {h}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
