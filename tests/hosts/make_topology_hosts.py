"""Fixture hosts for `anygpu topo`, registered by make_hosts.py (its Host class and helpers).

mi210-xgmi-8x: 8x AMD Instinct MI210 (0x740f, gfx90a) on two sockets, two fully connected
4-GPU xGMI hives. Its KFD topology is the public capture
ROCm/k8s-device-plugin testdata/topo-mi210-xgmi-pcie at commit
ed7646843003e8f0b6a0630346f01bb4d1ecff2e (Apache-2.0), stored unchanged under
tests/captures/rocm-k8s-device-plugin/topo-mi210-xgmi-pcie and copied byte for byte.
The PCI side is derived from each KFD GPU node's domain and location_id (bus << 8 | dev << 3 |
fn): one EPYC root complex per GPU, the GPU behind a PCIe switch, and on each switch's second
downstream port a ConnectX-6 InfiniBand NIC (mlx5_N, netdev ibp<bus>s0).
"""

from pathlib import Path

HERE = Path(__file__).resolve().parent
CAPTURE = HERE.parent / "captures" / "rocm-k8s-device-plugin" / "topo-mi210-xgmi-pcie"
KFD_NODES = "sys/class/kfd/kfd/topology/nodes"
MI210_VRAM = 68702699520  # 64 GiB HBM2e


def kfd_properties(path):
    return dict((k, int(v)) for k, v in (line.split() for line in path.read_text().splitlines()))


def copy_capture(h):
    for f in sorted(CAPTURE.rglob("*")):
        if f.is_file():
            p = h.root / KFD_NODES / f.relative_to(CAPTURE / "nodes")
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(f.read_bytes())


def gpu_nodes():
    """(kfd node, properties) of the capture's GPU nodes, in KFD order."""
    out = []
    for d in sorted((CAPTURE / "nodes").iterdir(), key=lambda p: int(p.name)):
        props = kfd_properties(d / "properties")
        if props["simd_count"] > 0:
            out.append((int(d.name), props))
    return out


def infiniband(h, nic_bdf, name, netdev, numa):
    pci = h.devpaths[nic_bdf]
    ib = "%s/infiniband/%s" % (pci, name)
    h.w("sys/%s/node_type" % ib, "1: CA")
    h.w("sys/%s/fw_ver" % ib, "20.39.1002")
    h.w("sys/%s/ports/1/state" % ib, "4: ACTIVE")
    h.w("sys/%s/ports/1/link_layer" % ib, "InfiniBand")
    h.w("sys/%s/ports/1/rate" % ib, "200 Gb/sec (4X HDR)")
    h.ln("sys/%s/device" % ib, "../../../%s" % nic_bdf)
    h.ln("sys/class/infiniband/%s" % name, "../../%s" % ib)
    net = "%s/net/%s" % (pci, netdev)
    h.w("sys/%s/type" % net, "32")
    h.w("sys/%s/operstate" % net, "up")
    h.ln("sys/%s/device" % net, "../../../%s" % nic_bdf)
    h.ln("sys/class/net/%s" % netdev, "../../%s" % net)


def make_mi210(base):
    link = base.link
    n0, n1 = "0-63,128-191", "64-127,192-255"
    h = base.Host("mi210-xgmi-8x", "gpu-mi210-01", "5.15.0-91-generic", "x86_64",
                  "ubuntu2204", 256, {0: n0, 1: n1})
    nodes = gpu_nodes()
    for rb in (0x00, 0x20, 0x40, 0x60, 0x80, 0xa0, 0xc0, 0xe0):
        h.pci("0000:%02x:00.0" % rb, None, 0x1022, 0x1480, 0x060000,
              subsys=(0x1022, 0x1480), numa=0 if rb < 0x80 else 1)
    h.bridge("0000:c0:05.2", None, 0x1022, 0x1483, 1, link(2, 1))
    base.aspeed_bmc(h, "0000:c2:00.0", "0000:c3:00.0", "0000:c0:05.2", 1, card=0)
    h.kfd_common()
    h.module("amdgpu")
    h.w("opt/rocm-6.0.2/.info/version", "6.0.2-115")
    h.ln("opt/rocm", "rocm-6.0.2")
    pci_order = sorted(nodes, key=lambda n: (n[1]["domain"], n[1]["location_id"]))
    for nic, (kfd, props) in enumerate(pci_order):
        gb = props["location_id"] >> 8
        numa = 0 if gb < 0x80 else 1
        rp = "0000:%02x:01.1" % (gb & 0xe0)
        up, dn, dn2 = ("0000:%02x:00.0" % (gb - 2), "0000:%02x:00.0" % (gb - 1),
                       "0000:%02x:01.0" % (gb - 1))
        gpu, nic_bdf = "0000:%02x:00.0" % gb, "0000:%02x:00.0" % (gb + 1)
        h.bridge(rp, None, 0x1022, 0x1483, numa, link(4, 16))
        h.bridge(up, rp, 0x1000, 0xc010, numa, link(4, 16), rev=0xb0)
        h.bridge(dn, up, 0x1000, 0xc010, numa, link(4, 16), rev=0xb0)
        h.bridge(dn2, up, 0x1000, 0xc010, numa, link(4, 16), rev=0xb0)
        d = h.pci(gpu, dn, 0x1002, 0x740f, 0x038000, subsys=(0x1002, 0x0c34), rev=0x02,
                  numa=numa, driver="amdgpu", module="amdgpu", link=link(4, 16))
        h.w(d + "/mem_info_vram_total", "%d" % MI210_VRAM)
        h.w(d + "/unique_id", "%016x" % props["unique_id"])
        h.w(d + "/product_name", "AMD Instinct MI210")
        render = props["drm_render_minor"]
        h.drm(gpu, render - 127, render)
        h.pci(nic_bdf, dn2, 0x15b3, 0x101b, 0x020700, subsys=(0x15b3, 0x0007), numa=numa,
              driver="mlx5_core", module="mlx5_core", link=link(4, 16))
        infiniband(h, nic_bdf, "mlx5_%d" % nic, "ibp%ds0" % (gb + 1), numa)
    copy_capture(h)


def hosts(base):
    """The hosts of this module for make_hosts.HOSTS; `base` is make_hosts itself."""
    return {"mi210-xgmi-8x": lambda: make_mi210(base)}
