"""Processes planted in a fixture root's /proc: what `ps`, `top` and the exporter's
`--processes` scan (fd links to device nodes, DRM fdinfo, cgroup, status)."""

import os
import shutil


def drm_fdinfo(pdev, client, kib, engine_ns=None):
    """An amdgpu DRM client's /proc/PID/fdinfo/N (the kernel's drm-usage-stats keys)."""
    text = (f"pos:\t0\nflags:\t02100002\ndrm-driver:\tamdgpu\ndrm-client-id:\t{client}\n"
            f"drm-pdev:\t{pdev}\ndrm-resident-vram:\t{kib} KiB\n")
    if engine_ns is not None:
        text += f"drm-engine-gfx:\t{engine_ns} ns\n"
    return text


def add_process(root, pid, comm, cgroup, fds, uid=0):
    """fds: {fd: (link target, fdinfo text or None)}"""
    base = os.path.join(root, "proc", str(pid))
    os.makedirs(os.path.join(base, "fd"))
    os.makedirs(os.path.join(base, "fdinfo"))
    for name, text in (("comm", comm + "\n"), ("cgroup", cgroup),
                       ("status", f"Name:\t{comm}\nUid:\t{uid}\t{uid}\t0\t0\n")):
        with open(os.path.join(base, name), "w") as f:
            f.write(text)
    for fd, (target, info) in fds.items():
        os.symlink(target, os.path.join(base, "fd", str(fd)))
        with open(os.path.join(base, "fdinfo", str(fd)), "w") as f:
            f.write(info or "pos:\t0\nflags:\t02\n")


def host_with_library(fixture, dest, library, soname="libnvidia-ml.so.1"):
    """A copy of a fixture host at `dest` whose loader directory holds `library` (a mock built
    by tests/mocklibs) as `soname`, where the library worker looks for it in production."""
    shutil.copytree(fixture, dest, symlinks=True)
    lib = os.path.join(dest, "usr/lib/x86_64-linux-gnu", soname)
    os.makedirs(os.path.dirname(lib), exist_ok=True)
    shutil.copyfile(library, lib)
    return dest
