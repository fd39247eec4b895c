"""Fixture hosts for partitions beyond MIG and AMD XCP, registered by make_hosts.py (its Host
class and helpers).

intel-flex-sriov: 2x Intel Data Center GPU Flex 170 (0x56c0, i915) with SR-IOV. The files are
the PCI core's (Linux Documentation/ABI/testing/sysfs-bus-pci: sriov_totalvfs, sriov_numvfs,
sriov_offset, sriov_stride, sriov_vf_device, sriov_drivers_autoprobe on the PF; a `physfn` link
on every VF and `virtfn<N>` links on the PF, drivers/pci/iov.c pci_iov_sysfs_link). Intel GPUs
place their VFs on the PF's own slot from function 1 on (offset 1, stride 1), as the public
i915 SR-IOV set-ups show for 0000:00:02.0 -> 00:02.1.. (strongtz/i915-sriov-dkms README,
yeguixiong/truenas-i915-sriov README: `echo N > .../0000:00:02.0/sriov_numvfs`); a Flex 170
(ATS-M) offers 31 VFs (xe's SR-IOV plan: "ATSM (up to 31 VFs)", Documentation/gpu/rfc/
xe_sriov.rst, intel-lab-lkp/linux at 2d06309281e8cd2ad0ddf25fa7d0cd4fdd61b6cc). The first card has 4 VFs enabled (xpu-smi
vgpu -c -n 4): VFs 1 and 2 bound to i915 on the host (containers), 3 and 4 to vfio-pci (guests).
The second card has SR-IOV capability but no VF enabled (sriov_numvfs 0): it stays a plain
device.

ascend-910b-vnpu: ascend-910b-8x with static vNPUs (`npu-smi set -t create-vnpu`) on two NPUs.
A vNPU is /dev/vdavinci<id>, id = 100 + 16 * <NPU physical id> + <slot> with slots 0..15 on
training products (Ascend/mind-cluster docs/en/scheduling/usage/virtual_instance/
virtual_instance_with_hdk/static_vnpu_scheduling/01_creating_vnpu.md, facts F-43). NPU 0 (bus
c1, 24 AICores on Atlas 800T A2) holds two vir12_3c_32g (ids 100, 101), NPU 1 (bus c2) four
vir06_1c_16g (ids 116..119): the A2 training templates (03_virtualization_templates.md, F-44).
Templates are DCMI's to tell; the fixture has no DCMI, so none is shown.

mi308x-8x-cpx: 8x AMD Instinct MI308X (0x74a2) in CPX mode. Its KFD topology is the public
capture ROCm/k8s-device-plugin testdata/topology-parsing-mi308/topology at commit
ed7646843003e8f0b6a0630346f01bb4d1ecff2e (added in d7114784a180d8436794ebab56dd0a6346501aae;
Apache-2.0), stored under tests/captures/rocm-k8s-device-plugin/topology-parsing-mi308 and
copied byte for byte. It shows 2 CPU nodes and 32 GPU nodes: 4 partitions per GPU (num_xcc 1,
80 SIMDs each), on two PCI domains (buses 0a 80 a4 c8 in domain 0, 0b 81 a5 c9 in domain 1),
render minors striding 8 per GPU with 4 used (128-131, 136-139, ...). The PCI side is derived
from each node's domain and location_id. Its io_links (testdata/topology-parsing-mi308/
topology/nodes/<N>/io_links, same commit) join every two partitions by xGMI (type 11), weight
13 inside a GPU and 41 across GPUs; its p2p_links are PCIe paths to the other CPU node. The
capture has no sysfs mode files: the fixture writes only current_compute_partition CPX, which
its nodes imply, and no memory mode.
"""

from pathlib import Path

HERE = Path(__file__).resolve().parent
MI308X_CAPTURE = HERE.parent / "captures" / "rocm-k8s-device-plugin" / "topology-parsing-mi308"

FLEX170 = 0x56C0


def sriov_pf(h, pf, total, vfs):
    """The PF's SR-IOV files and its virtfn links; `vfs` are the VF bus ids in VF order."""
    d = "sys/" + h.devpaths[pf]
    h.w(d + "/sriov_totalvfs", "%d" % total)
    h.w(d + "/sriov_numvfs", "%d" % len(vfs))
    h.w(d + "/sriov_offset", "1")
    h.w(d + "/sriov_stride", "1")
    h.w(d + "/sriov_vf_device", "%x" % FLEX170)
    h.w(d + "/sriov_drivers_autoprobe", "1")
    h.w(d + "/sriov_vf_total_msix", "0")
    for n, vf in enumerate(vfs):
        h.ln("%s/virtfn%d" % (d, n), "../" + vf)
        h.ln("sys/%s/physfn" % h.devpaths[vf], "../" + pf)


def make_flex_sriov(base):
    n0, n1 = "0-31,64-95", "32-63,96-127"
    h = base.Host("intel-flex-sriov", "vdi-flex-01", "6.5.0-45-generic", "x86_64",
                  "ubuntu2204.5", 128, {0: n0, 1: n1})
    h.pci("0000:00:00.0", None, 0x8086, 0x09a2, 0x088000, subsys=(0x8086, 0x0000),
          rev=0x20, numa=0)
    h.bridge("0000:00:1c.0", None, 0x8086, 0x1bb8, 0, base.link(1, 1), rev=0x11)
    base.aspeed_bmc(h, "0000:01:00.0", "0000:02:00.0", "0000:00:1c.0", 0, card=0)
    card, render = 1, 128
    for gb, numa, nvfs in ((0x4d, 0, 4), (0xcb, 1, 0)):
        rb = gb - 3
        h.pci("0000:%02x:00.0" % rb, None, 0x8086, 0x09a2, 0x088000,
              subsys=(0x8086, 0x0000), rev=0x20, numa=numa)
        rp = "0000:%02x:01.0" % rb
        up = "0000:%02x:00.0" % (gb - 2)
        dn = "0000:%02x:01.0" % (gb - 1)
        h.bridge(rp, None, 0x8086, 0x352a, numa, base.link(5, 16), rev=0x04)
        h.bridge(up, rp, 0x8086, 0x4fa0, numa, base.link(4, 16), rev=0x01)
        h.bridge(dn, up, 0x8086, 0x4fa4, numa, base.link(4, 16), rev=0x00)
        pf = "0000:%02x:00.0" % gb
        h.pci(pf, dn, 0x8086, FLEX170, 0x038000, subsys=(0x8086, 0x4905), rev=0x08,
              numa=numa, driver="i915", module="i915", link=base.link(4, 16), irq=0)
        h.drm(pf, card, render)
        card, render = card + 1, render + 1
        vfs = []
        for n in range(nvfs):
            vf = "0000:%02x:00.%d" % (gb, n + 1)
            # VFs have no link registers of their own to show, and guests' VFs belong to
            # vfio-pci (no DRM node on the host).
            host_vf = n < 2
            h.pci(vf, dn, 0x8086, FLEX170, 0x038000, subsys=(0x8086, 0x4905), rev=0x08,
                  numa=numa, driver="i915" if host_vf else "vfio-pci",
                  module="i915" if host_vf else "vfio_pci", irq=0)
            if host_vf:
                h.drm(vf, card, render)
                card, render = card + 1, render + 1
            vfs.append(vf)
        sriov_pf(h, pf, 31, vfs)
    return h


def make_ascend_vnpu(base):
    h = base.make_ascend("ascend-910b-vnpu", "npu-910b-vnpu-01")
    for vnpu in (100, 101, 116, 117, 118, 119):
        h.node("dev/vdavinci%d" % vnpu)
    return h


def kfd_gpus(capture):
    """{(domain, bus): [(node, properties)]} of the capture's GPU nodes, in KFD order."""
    gpus = {}
    for node in sorted((capture / "nodes").iterdir(), key=lambda p: int(p.name)):
        props = dict(l.split(" ", 1) for l in (node / "properties").read_text().splitlines())
        if int(props["simd_count"]):
            key = (int(props["domain"]), int(props["location_id"]) >> 8)
            gpus.setdefault(key, []).append((int(node.name), props))
    return gpus


def make_mi308x_cpx(base):
    h = base.Host("mi308x-8x-cpx", "gpu-mi308x-cpx-01", "6.8.0-52-generic", "x86_64",
                  "ubuntu2204.5", 192, {0: "0-95", 1: "96-191"})
    t = "sys/class/kfd/kfd/topology"
    for f in sorted(MI308X_CAPTURE.rglob("*")):
        if f.is_file():
            rel = f.relative_to(MI308X_CAPTURE).as_posix()
            (h.root / t / rel).parent.mkdir(parents=True, exist_ok=True)
            (h.root / t / rel).write_bytes(f.read_bytes())
    h.w("sys/class/kfd/kfd/dev", "235:0")
    h.w("sys/class/kfd/kfd/uevent", "MAJOR=235\nMINOR=0\nDEVNAME=kfd")
    h.node("dev/kfd")
    h.module("amdgpu", "6.10.5")
    gpus = kfd_gpus(MI308X_CAPTURE)
    h.pci("0000:c0:00.0", None, 0x1022, 0x14a4, 0x060000, subsys=(0x1022, 0x14a4), rev=0x01,
          numa=1)
    h.bridge("0000:c0:05.2", None, 0x1022, 0x14aa, 1, base.link(2, 1))
    base.aspeed_bmc(h, "0000:c2:00.0", "0000:c3:00.0", "0000:c0:05.2", 1, card=0)
    xcp = 0
    for g, ((dom, gb), nodes) in enumerate(sorted(gpus.items())):
        numa = 0 if gb < 0x80 else 1
        rb = gb - 3  # each GPU behind a root port of its own root complex
        h.pci("%04x:%02x:00.0" % (dom, rb), None, 0x1022, 0x14a4, 0x060000,
              subsys=(0x1022, 0x14a4), rev=0x01, numa=numa)
        rp = "%04x:%02x:01.1" % (dom, rb)
        up = "%04x:%02x:00.0" % (dom, gb - 2)
        dn = "%04x:%02x:00.0" % (dom, gb - 1)
        gpu = "%04x:%02x:00.0" % (dom, gb)
        h.bridge(rp, None, 0x1022, 0x14ab, numa, base.link(5, 16))
        h.bridge(up, rp, 0x1002, 0x14a0, numa, base.link(5, 16))
        h.bridge(dn, up, 0x1002, 0x14a1, numa, base.link(5, 16))
        d = h.pci(gpu, dn, 0x1002, 0x74a2, 0x120000, subsys=(0x1002, 0x74a2),
                  rev=0x00, numa=numa, driver="amdgpu", module="amdgpu",
                  modversion="6.10.5", link=base.link(5, 16), irq=0)
        h.w(d + "/unique_id", "%016x" % int(nodes[0][1]["unique_id"]))
        h.w(d + "/current_compute_partition", "CPX")
        h.w(d + "/product_name", "AMD Instinct MI308X")
        # Partition 0 is the PCI device's DRM device; the driver always makes 7 more
        # amdgpu_xcp DRM devices per GPU (F-26), of which KFD lists only the first 3 here
        # (render minors 4-7 of each stride are not partitions, F-28). Card minors stop at
        # 63 (the BMC holds card0).
        h.drm(gpu, 1 + 8 * g, 128 + 8 * g)
        for p in range(1, 8):
            card = 1 + 8 * g + p
            base.xcp_platform_device(h, xcp, card if card <= 63 else None,
                                     128 + 8 * g + p if card <= 63 else None)
            xcp += 1
    return h


def hosts(base):
    """The hosts of this module for make_hosts.HOSTS; `base` is make_hosts itself."""
    return {"intel-flex-sriov": lambda: make_flex_sriov(base),
            "ascend-910b-vnpu": lambda: make_ascend_vnpu(base),
            "mi308x-8x-cpx": lambda: make_mi308x_cpx(base)}
