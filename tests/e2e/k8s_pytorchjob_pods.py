#!/usr/bin/python3
"""Runs the pods of a PyTorchJob manifest as local processes, with the environment the Kubeflow
training operator gives each pod, until they exit.

    k8s_pytorchjob_pods.py MANIFEST WORKDIR TIMEOUT_S [--args-override JSON]

The environment is the operator's (kubeflow/training-operator@078ec30ff266, release-1.9,
pkg/controller.v1/pytorch/envvar.go setPodEnv and master.go): the container's own env, then
PYTHONUNBUFFERED=1, MASTER_PORT/PET_MASTER_PORT, MASTER_ADDR/PET_MASTER_ADDR,
WORLD_SIZE = replicas x nprocPerNode, RANK and PET_NODE_RANK = the pod's index (Master 0,
Worker i+1), PET_NPROC_PER_NODE = nprocPerNode, PET_NNODES = replicas. Two things stand in for
the cluster: the master Service name <job>-master-0 resolves to 127.0.0.1 here, and the port is
a free local one instead of the operator's default 23456. Each pod runs the container's args
(the image's ENTRYPOINT is a plain exec here) in WORKDIR with PATH and HOME from this process.
Prints one line per pod with its exit status; exits 0 when every pod exited 0, 124 when the
timeout struck (pods are killed), else 1.
"""
import json
import os
import signal
import subprocess
import sys
import time

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ports import rendezvous_port  # noqa: E402


def pods(job):
    spec = job["spec"]
    replicas = spec["pytorchReplicaSpecs"]
    total = sum(int(r["replicas"]) for r in replicas.values())
    nproc = spec.get("nprocPerNode")
    try:
        world = total * int(nproc)
    except (TypeError, ValueError):
        world = total  # "auto" or absent: the operator counts one process per pod
    port = rendezvous_port()
    master_addr = "127.0.0.1"  # stands in for the Service <job>-master-0
    for rtype in ("Master", "Worker"):
        r = replicas.get(rtype)
        if not r:
            continue
        for index in range(int(r["replicas"])):
            rank = index + 1 if rtype == "Worker" else index
            c = next(c for c in r["template"]["spec"]["containers"] if c["name"] == "pytorch")
            env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/root")}
            for e in c.get("env", []):
                env[e["name"]] = e["value"]
            env["PYTHONUNBUFFERED"] = "1"
            env["MASTER_PORT"] = env["PET_MASTER_PORT"] = str(port)
            env["MASTER_ADDR"] = env["PET_MASTER_ADDR"] = master_addr
            env["WORLD_SIZE"] = str(world)
            env["RANK"] = env["PET_NODE_RANK"] = str(rank)
            if nproc is not None:
                env["PET_NPROC_PER_NODE"] = str(nproc)
            env["PET_NNODES"] = str(total)
            yield f"{rtype.lower()}-{index}", list(c.get("args", [])), env


def main(argv):
    manifest, workdir, timeout = argv[1], argv[2], float(argv[3])
    override = json.loads(argv[5]) if len(argv) > 5 and argv[4] == "--args-override" else None
    with open(manifest) as f:
        job = yaml.safe_load(f)
    assert job["kind"] == "PyTorchJob", job["kind"]
    running = []
    for name, args, env in pods(job):
        if override is not None:
            args = override
        log = open(os.path.join(workdir, name + ".log"), "w")
        p = subprocess.Popen(args, cwd=workdir, env=env, stdout=log, stderr=subprocess.STDOUT,
                             start_new_session=True)
        running.append((name, p))
    deadline = time.monotonic() + timeout
    timed_out = False
    for name, p in running:
        left = deadline - time.monotonic()
        try:
            p.wait(timeout=max(left, 0.1))
        except subprocess.TimeoutExpired:
            timed_out = True
    for name, p in running:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        print(f"{name}: exit {p.returncode}")
    if timed_out:
        return 124
    return 0 if all(p.returncode == 0 for _, p in running) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
