"""Partitions reach Python through the C ABI's JSON: the MI300X CPX capture and MIG host."""
import anygpu
from conftest import host


def test_cpx_partitions_in_python(isolated):
    doc = anygpu.detect(root=host("mi300x-8x-cpx"), no_libs=True)
    gpus = doc["devices"]
    assert len(gpus) == 8
    assert all(d["partitioning"] == {"mode": "CPX", "memory_mode": "NPS4"} for d in gpus)
    assert [len(d["partitions"]) for d in gpus] == [8] * 7 + [7]
    first = gpus[0]["partitions"][3]
    assert first == {"index": 3, "id": "0000:05:00.0/3",
                     "device_nodes": ["/dev/dri/card4", "/dev/dri/renderD131"],
                     "render_node": "/dev/dri/renderD131"}
    assert any("0000:e5:00.0: CPX shows 7 partitions" in w for w in doc["warnings"])


def test_mig_partitions_in_python(isolated):
    doc = anygpu.detect(root=host("h100-8x-mig"), no_libs=True)
    by_bus = {d["pci"]["bus_id"]: d for d in doc["devices"]}
    gpu1 = by_bus["0000:2a:00.0"]
    assert gpu1["partitioning"] == {"mode": "mig"}
    assert [p["id"] for p in gpu1["partitions"]] == [
        "0000:2a:00.0/0", "0000:2a:00.0/1", "0000:2a:00.0/2"]
    # Without NVML there is no profile, UUID or memory: the keys are absent, never empty or 0.
    for p in gpu1["partitions"]:
        assert not {"profile", "uuid", "memory_total_bytes"} & set(p)
    assert "partitions" not in by_bus["0000:db:00.0"]


def test_unpartitioned_host_has_no_partition_keys(isolated):
    doc = anygpu.detect(root=host("mi300x-8x"), no_libs=True)
    assert all("partitioning" not in d and "partitions" not in d for d in doc["devices"])


def test_sriov_in_python(isolated):
    doc = anygpu.detect(root=host("intel-flex-sriov"), no_libs=True)
    by_bus = {d["pci"]["bus_id"]: d for d in doc["devices"]}
    assert by_bus["0000:4d:00.0"]["sriov"] == {"total_vfs": 31, "num_vfs": 4}
    assert "physfn" not in by_bus["0000:4d:00.0"]
    assert [by_bus["0000:4d:00.%d" % f]["physfn"] for f in range(1, 5)] == ["0000:4d:00.0"] * 4
    # SR-IOV capable without VFs enabled: no key at all.
    assert not {"sriov", "physfn"} & set(by_bus["0000:cb:00.0"])


def test_tiles_and_vnpus_in_python(isolated):
    max_arc = anygpu.detect(root=host("intel-max-arc"), no_libs=True)
    tiled = [d for d in max_arc["devices"] if "partitioning" in d]
    assert [d["partitioning"] for d in tiled] == [{"mode": "tiles"}] * 2
    assert [p["id"] for p in tiled[0]["partitions"]] == ["0000:29:00.0/0", "0000:29:00.0/1"]
    vnpu = anygpu.detect(root=host("ascend-910b-vnpu"), no_libs=True)
    by_bus = {d["pci"]["bus_id"]: d for d in vnpu["devices"]}
    assert by_bus["0000:c2:00.0"]["partitioning"] == {"mode": "vnpu"}
    assert [p["device_nodes"] for p in by_bus["0000:c2:00.0"]["partitions"]] == [
        ["/dev/vdavinci%d" % n] for n in (116, 117, 118, 119)]
