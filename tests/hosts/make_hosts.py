#!/usr/bin/python3
"""(Re)create the fixture host trees used by the anygpu discovery tests.

Each host lives in tests/hosts/<name>/ and mirrors the parts of a real Linux
root that discovery reads: sys/, proc/, dev/, etc/, opt/, usr/.  The layouts,
file names, symlinks and formats follow real hosts (see README.md next to this
file for every host's facts and the public sources used).

Usage: /usr/bin/python3 tests/hosts/make_hosts.py [HOST ...]

Deterministic and idempotent: every run deletes and recreates exactly the host
directories named in HOSTS below (or the ones given on the command line) and
touches nothing else.  Python 3 standard library only.
"""

import hashlib
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


def parse_cpulist(text):
    cpus = []
    for part in text.split(","):
        if "-" in part:
            lo, hi = part.split("-")
            cpus.extend(range(int(lo), int(hi) + 1))
        else:
            cpus.append(int(part))
    return cpus


def cpumask(cpulist, ncpus):
    """Kernel bitmap format: 32-bit hex words, most significant first."""
    bits = 0
    for c in parse_cpulist(cpulist):
        bits |= 1 << c
    words = (ncpus + 31) // 32
    return ",".join("%08x" % ((bits >> (32 * i)) & 0xFFFFFFFF)
                    for i in reversed(range(words)))


def det_hex(seed, n):
    """Deterministic lowercase hex string of n digits derived from seed."""
    out = ""
    i = 0
    while len(out) < n:
        out += hashlib.sha256(("%s/%d" % (seed, i)).encode()).hexdigest()
        i += 1
    return out[:n]


def gpu_uuid(seed):
    h = det_hex(seed, 32)
    return "GPU-%s-%s-%s-%s-%s" % (h[0:8], h[8:12], h[12:16], h[16:20], h[20:32])


def split_bdf(bdf):
    dom, bus, devfn = bdf.split(":")
    dev, fn = devfn.split(".")
    return int(dom, 16), int(bus, 16), int(dev, 16), int(fn, 16)


OS_RELEASE = {
    "ubuntu2204": """PRETTY_NAME="Ubuntu 22.04.4 LTS"
NAME="Ubuntu"
VERSION_ID="22.04"
VERSION="22.04.4 LTS (Jammy Jellyfish)"
VERSION_CODENAME=jammy
ID=ubuntu
ID_LIKE=debian
HOME_URL="https://www.ubuntu.com/"
SUPPORT_URL="https://help.ubuntu.com/"
BUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"
PRIVACY_POLICY_URL="https://www.ubuntu.com/legal/terms-and-policies/privacy-policy"
UBUNTU_CODENAME=jammy
""",
    "ubuntu2204.5": """PRETTY_NAME="Ubuntu 22.04.5 LTS"
NAME="Ubuntu"
VERSION_ID="22.04"
VERSION="22.04.5 LTS (Jammy Jellyfish)"
VERSION_CODENAME=jammy
ID=ubuntu
ID_LIKE=debian
HOME_URL="https://www.ubuntu.com/"
SUPPORT_URL="https://help.ubuntu.com/"
BUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"
PRIVACY_POLICY_URL="https://www.ubuntu.com/legal/terms-and-policies/privacy-policy"
UBUNTU_CODENAME=jammy
""",
    "ubuntu2404": """PRETTY_NAME="Ubuntu 24.04.1 LTS"
NAME="Ubuntu"
VERSION_ID="24.04"
VERSION="24.04.1 LTS (Noble Numbat)"
VERSION_CODENAME=noble
ID=ubuntu
ID_LIKE=debian
HOME_URL="https://www.ubuntu.com/"
SUPPORT_URL="https://help.ubuntu.com/"
BUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"
PRIVACY_POLICY_URL="https://www.ubuntu.com/legal/terms-and-policies/privacy-policy"
UBUNTU_CODENAME=noble
LOGO=ubuntu-logo
""",
    "fedora40": """NAME="Fedora Linux"
VERSION="40 (Workstation Edition)"
ID=fedora
VERSION_ID=40
VERSION_CODENAME=""
PLATFORM_ID="platform:f40"
PRETTY_NAME="Fedora Linux 40 (Workstation Edition)"
ANSI_COLOR="0;38;2;60;110;180"
LOGO=fedora-logo-icon
CPE_NAME="cpe:/o:fedoraproject:fedora:40"
DEFAULT_HOSTNAME="fedora"
HOME_URL="https://fedoraproject.org/"
DOCUMENTATION_URL="https://docs.fedoraproject.org/en-US/fedora/f40/system-administrators-guide/"
SUPPORT_URL="https://ask.fedoraproject.org/"
BUG_REPORT_URL="https://bugzilla.redhat.com/"
REDHAT_BUGZILLA_PRODUCT="Fedora"
REDHAT_BUGZILLA_PRODUCT_VERSION=40
REDHAT_SUPPORT_PRODUCT="Fedora"
REDHAT_SUPPORT_PRODUCT_VERSION=40
SUPPORT_END=2025-05-13
VARIANT="Workstation Edition"
VARIANT_ID=workstation
""",
    "debian12": """PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
NAME="Debian GNU/Linux"
VERSION_ID="12"
VERSION="12 (bookworm)"
VERSION_CODENAME=bookworm
ID=debian
HOME_URL="https://www.debian.org/"
SUPPORT_URL="https://www.debian.org/support"
BUG_REPORT_URL="https://bugs.debian.org/"
""",
    "openeuler2203": """NAME="openEuler"
VERSION="22.03 LTS"
ID="openEuler"
VERSION_ID="22.03"
PRETTY_NAME="openEuler 22.03 LTS"
ANSI_COLOR="0;31"
""",
}

NV_VERSION = "550.90.07"
NV_PROC_VERSION = (
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  "
    "Fri May 31 09:35:42 UTC 2024\n"
    "GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04) \n")


class Host:
    def __init__(self, name, hostname, kernel, arch, os_key, ncpus, nodes, base=None):
        """nodes: {node_id: cpulist}; base: the directory above the tree (default: here)"""
        self.name = name
        self.root = (base or HERE) / name
        self.ncpus = ncpus
        self.nodes = nodes
        self.devpaths = {}        # bdf -> path relative to sys/
        self.drivers = set()
        self.modules = set()
        golden = None  # expected.json is the reviewed golden, not generated: keep it
        if self.root.is_dir() and (self.root / "expected.json").is_file():
            golden = (self.root / "expected.json").read_bytes()
        if self.root.is_symlink() or self.root.is_file():
            self.root.unlink()
        elif self.root.exists():
            shutil.rmtree(self.root)
        self.root.mkdir(parents=True)
        if golden is not None:
            (self.root / "expected.json").write_bytes(golden)
        self.w("proc/sys/kernel/hostname", hostname)
        self.w("proc/sys/kernel/osrelease", kernel)
        self.w("proc/sys/kernel/arch", arch)
        self.w("etc/hostname", hostname)
        self.w("etc/os-release", OS_RELEASE[os_key])
        self.w("sys/devices/system/cpu/online", "0-%d" % (ncpus - 1))
        self.w("sys/devices/system/cpu/possible", "0-%d" % (ncpus - 1))
        self.w("sys/devices/system/cpu/present", "0-%d" % (ncpus - 1))
        self.w("sys/devices/system/cpu/uevent", "")
        ids = sorted(nodes)
        span = "%d" % ids[0] if len(ids) == 1 else "%d-%d" % (ids[0], ids[-1])
        self.w("sys/devices/system/node/online", span)
        self.w("sys/devices/system/node/possible", span)
        self.w("sys/devices/system/node/has_cpu", span)
        for n in ids:
            self.w("sys/devices/system/node/node%d/cpulist" % n, nodes[n])
            self.w("sys/devices/system/node/node%d/cpumap" % n,
                   cpumask(nodes[n], ncpus))
            self.w("sys/devices/system/node/node%d/uevent" % n, "")
        self.w("sys/bus/pci/drivers_autoprobe", "1")
        self.w("sys/bus/pci/uevent", "")

    # -- primitive writers ------------------------------------------------
    def w(self, rel, text):
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        text = str(text)
        if text and not text.endswith("\n"):
            text += "\n"
        p.write_text(text)

    def node(self, rel):
        """A device node: an empty regular file."""
        self.w(rel, "")

    def ln(self, rel, target):
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if p.is_symlink() or p.exists():
            p.unlink()
        p.symlink_to(target)

    # -- kernel modules / drivers ----------------------------------------
    def module(self, name, version=None):
        if name in self.modules:
            return
        self.modules.add(name)
        base = "sys/module/%s" % name
        self.w(base + "/uevent", "")
        self.w(base + "/initstate", "live")
        self.w(base + "/refcnt", "0")
        if version:
            self.w(base + "/version", version)

    def driver(self, name, module=None, version=None):
        base = "sys/bus/pci/drivers/%s" % name
        if name not in self.drivers:
            self.drivers.add(name)
            self.w(base + "/bind", "")
            self.w(base + "/unbind", "")
            self.w(base + "/uevent", "")
            self.w(base + "/new_id", "")
            self.w(base + "/remove_id", "")
            if module:
                self.module(module, version)
                self.ln(base + "/module", "../../../../module/%s" % module)
                self.ln("sys/module/%s/drivers/pci:%s" % (module, name),
                        "../../../bus/pci/drivers/%s" % name)
        return base

    # -- PCI ---------------------------------------------------------------
    def pci(self, bdf, parent, vendor, device, cls, subsys=(None, None),
            rev=0x00, numa=-1, driver=None, module=None, modversion=None,
            link=None, runtime="active", control="on", irq=0, boot_vga=None,
            root_bus=None):
        """Create one PCI function.

        parent: bdf of the upstream bridge (None = on a root bus).
        link: (cur_speed, cur_width, max_speed, max_width) or None (no PCIe
              link, e.g. host bridges / RC integrated endpoints).
        """
        dom, bus, dev, fn = split_bdf(bdf)
        if parent is None:
            rb = bus if root_bus is None else root_bus
            path = "devices/pci%04x:%02x/%s" % (dom, rb, bdf)
        else:
            path = self.devpaths[parent] + "/" + bdf
        self.devpaths[bdf] = path
        d = "sys/" + path
        sv, sd = subsys
        if sv is None:
            sv, sd = vendor, 0x0000
        # root complex directory needs a file too
        rc = "sys/" + "/".join(path.split("/")[:2])
        self.w(rc + "/uevent", "")
        self.w(rc + "/power/control", "auto")

        self.w(d + "/vendor", "0x%04x" % vendor)
        self.w(d + "/device", "0x%04x" % device)
        self.w(d + "/class", "0x%06x" % cls)
        self.w(d + "/subsystem_vendor", "0x%04x" % sv)
        self.w(d + "/subsystem_device", "0x%04x" % sd)
        self.w(d + "/revision", "0x%02x" % rev)
        self.w(d + "/numa_node", "%d" % numa)
        cpus = self.nodes[numa] if numa >= 0 else "0-%d" % (self.ncpus - 1)
        self.w(d + "/local_cpulist", cpus)
        self.w(d + "/local_cpus", cpumask(cpus, self.ncpus))
        self.w(d + "/irq", "%d" % irq)
        self.w(d + "/enable", "1")
        self.w(d + "/driver_override", "(null)")
        self.w(d + "/d3cold_allowed", "1")
        if boot_vga is not None:
            self.w(d + "/boot_vga", "1" if boot_vga else "0")
        if link:
            cs, cw, ms, mw = link
            self.w(d + "/current_link_speed", cs)
            self.w(d + "/current_link_width", "%d" % cw)
            self.w(d + "/max_link_speed", ms)
            self.w(d + "/max_link_width", "%d" % mw)
        modalias = "pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X" % (
            vendor, device, sv, sd, cls >> 16, (cls >> 8) & 0xFF, cls & 0xFF)
        self.w(d + "/modalias", modalias)
        ue = []
        if driver:
            ue.append("DRIVER=%s" % driver)
        ue += ["PCI_CLASS=%X" % cls,
               "PCI_ID=%04X:%04X" % (vendor, device),
               "PCI_SUBSYS_ID=%04X:%04X" % (sv, sd),
               "PCI_SLOT_NAME=%s" % bdf,
               "MODALIAS=%s" % modalias]
        self.w(d + "/uevent", "\n".join(ue))
        self.w(d + "/power/runtime_status", runtime)
        self.w(d + "/power/control", control)
        self.w(d + "/power/runtime_enabled",
               "enabled" if control == "auto" else "forbidden")
        depth = len(path.split("/"))
        self.ln(d + "/subsystem", "../" * depth + "bus/pci")
        self.ln("sys/bus/pci/devices/%s" % bdf, "../../../" + path)
        if driver:
            base = self.driver(driver, module, modversion)
            self.ln(d + "/driver", "../" * depth + "bus/pci/drivers/%s" % driver)
            self.ln(base + "/" + bdf, "../../../../" + path)
        return d

    def bridge(self, bdf, parent, vendor, device, numa, link, subsys=(None, None),
               rev=0x00, root_bus=None):
        return self.pci(bdf, parent, vendor, device, 0x060400, subsys=subsys,
                        rev=rev, numa=numa, driver="pcieport", link=link,
                        irq=0, root_bus=root_bus)

    # -- DRM -----------------------------------------------------------------
    def drm(self, bdf, card, render=None, card_files=None):
        path = self.devpaths[bdf]
        depth = len(path.split("/"))
        for kind, minor in (("card", card), ("renderD", render)):
            if minor is None:
                continue
            nm = "%s%d" % (kind, minor)
            d = "sys/%s/drm/%s" % (path, nm)
            self.w(d + "/dev", "226:%d" % minor)
            self.w(d + "/uevent",
                   "MAJOR=226\nMINOR=%d\nDEVNAME=dri/%s\nDEVTYPE=drm_minor" % (minor, nm))
            self.ln(d + "/device", "../../../%s" % bdf)
            self.ln(d + "/subsystem", "../" * (depth + 2) + "class/drm")
            self.ln("sys/class/drm/%s" % nm, "../../%s/drm/%s" % (path, nm))
            self.node("dev/dri/%s" % nm)
            suffix = "card" if kind == "card" else "render"
            self.ln("dev/dri/by-path/pci-%s-%s" % (bdf, suffix), "../%s" % nm)
            if kind == "card":
                for f, v in (card_files or {}).items():
                    self.w(d + "/" + f, v)
        self.w("sys/class/drm/version", "drm 1.1.0 20060810")

    def hwmon(self, bdf, n, files):
        path = self.devpaths[bdf]
        d = "sys/%s/hwmon/hwmon%d" % (path, n)
        for f, v in files.items():
            self.w(d + "/" + f, v)
        self.w(d + "/uevent", "")
        self.ln(d + "/device", "../../../%s" % bdf)
        self.ln("sys/class/hwmon/hwmon%d" % n, "../../%s/hwmon/hwmon%d" % (path, n))

    # -- vendor helpers ---------------------------------------------------------
    def nvidia_common(self, ngpus, proc_version=NV_PROC_VERSION, version=NV_VERSION):
        self.w("proc/driver/nvidia/version", proc_version)
        self.w("proc/driver/nvidia/params", "ResmanDebugLevel: 4294967295\nModifyDeviceFiles: 1\n"
               "DeviceFileUID: 0\nDeviceFileGID: 0\nDeviceFileMode: 438\n")
        for m in ("nvidia_uvm", "nvidia_modeset", "nvidia_drm"):
            self.module(m)
        self.module("nvidia", version)
        for i in range(ngpus):
            self.node("dev/nvidia%d" % i)
        for n in ("nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset"):
            self.node("dev/" + n)

    def nvidia_info(self, bdf, model, irq, minor, vbios, dma_bits=52,
                    power=None):
        mask = (1 << dma_bits) - 1
        text = ("Model: \t\t %s\n"
                "IRQ:   \t\t %d\n"
                "GPU UUID: \t %s\n"
                "Video BIOS: \t %s\n"
                "Bus Type: \t PCIe\n"
                "DMA Size: \t %d bits\n"
                "DMA Mask: \t 0x%x\n"
                "Bus Location: \t %s\n"
                "Device Minor: \t %d\n"
                "GPU Excluded:\t No\n") % (
                    model, irq, gpu_uuid(self.name + bdf), vbios, dma_bits,
                    mask, bdf, minor)
        base = "proc/driver/nvidia/gpus/%s" % bdf
        self.w(base + "/information", text)
        self.w(base + "/registry", "Binary: \"\"\n")
        if power:
            self.w(base + "/power", power)

    def kfd_common(self, gens=1):
        t = "sys/class/kfd/kfd/topology"
        self.w(t + "/system_properties", "platform_oem 0\nplatform_id 0\nplatform_rev 0")
        self.w(t + "/generation_id", "%d" % gens)
        self.w("sys/class/kfd/kfd/dev", "235:0")
        self.w("sys/class/kfd/kfd/uevent", "MAJOR=235\nMINOR=0\nDEVNAME=kfd")
        self.node("dev/kfd")

    def kfd_cpu_node(self, n, cores, core_base, mem_bytes, clk=3700):
        d = "sys/class/kfd/kfd/topology/nodes/%d" % n
        props = [
            ("cpu_cores_count", cores), ("simd_count", 0), ("mem_banks_count", 1),
            ("caches_count", 0), ("io_links_count", 0), ("p2p_links_count", 0),
            ("cpu_core_id_base", core_base), ("simd_id_base", 0),
            ("max_waves_per_simd", 0), ("lds_size_in_kb", 0), ("gds_size_in_kb", 0),
            ("num_gws", 0), ("wave_front_size", 0), ("array_count", 0),
            ("simd_arrays_per_engine", 0), ("cu_per_simd_array", 0),
            ("simd_per_cu", 0), ("max_slots_scratch_cu", 0),
            ("gfx_target_version", 0), ("vendor_id", 0), ("device_id", 0),
            ("location_id", 0), ("domain", 0), ("drm_render_minor", 0),
            ("hive_id", 0), ("num_sdma_engines", 0), ("num_sdma_xgmi_engines", 0),
            ("num_sdma_queues_per_engine", 0), ("num_cp_queues", 0),
            ("max_engine_clk_ccompute", clk)]
        self.w(d + "/properties", "\n".join("%s %s" % kv for kv in props))
        self.w(d + "/gpu_id", "0")
        self.w(d + "/name", "")
        self.w(d + "/mem_banks/0/properties",
               "heap_type 0\nsize_in_bytes %d\nflags 0\nwidth 64\nmem_clk_max 4800" % mem_bytes)

    def kfd_gpu_node(self, n, bdf, gpu_id, gfx, vendor_id, device_id, render,
                     simd, vram, unique_id, num_xcc=1, hive_id=0, cpu_node=0,
                     fclk=2100, cclk=3700, arrays=32, cu_per_array=2, waves=16,
                     sdma=2, xgmi_sdma=0, cp_queues=24, lds=64,
                     wave_front=64, fw=0, sdma_fw=0, capability=0, name="ip discovery"):
        dom, bus, dev, fn = split_bdf(bdf)
        d = "sys/class/kfd/kfd/topology/nodes/%d" % n
        props = [
            ("cpu_cores_count", 0), ("simd_count", simd), ("mem_banks_count", 1),
            ("caches_count", 0), ("io_links_count", 1), ("p2p_links_count", 0),
            ("cpu_core_id_base", 0), ("simd_id_base", 2147487744 + 16 * n),
            ("max_waves_per_simd", waves), ("lds_size_in_kb", lds),
            ("gds_size_in_kb", 0), ("num_gws", 64), ("wave_front_size", wave_front),
            ("array_count", arrays), ("simd_arrays_per_engine", 1 if num_xcc > 1 else 2),
            ("cu_per_simd_array", cu_per_array), ("simd_per_cu", 4 if wave_front == 64 else 2),
            ("max_slots_scratch_cu", 32), ("gfx_target_version", gfx),
            ("vendor_id", vendor_id), ("device_id", device_id),
            ("location_id", (bus << 8) | (dev << 3) | fn), ("domain", dom),
            ("drm_render_minor", render), ("hive_id", hive_id),
            ("num_sdma_engines", sdma), ("num_sdma_xgmi_engines", xgmi_sdma),
            ("num_sdma_queues_per_engine", 8), ("num_cp_queues", cp_queues),
            ("max_engine_clk_fcompute", fclk), ("local_mem_size", 0),
            ("fw_version", fw), ("capability", capability), ("debug_prop", 0),
            ("sdma_fw_version", sdma_fw), ("unique_id", unique_id),
            ("num_xcc", num_xcc), ("max_engine_clk_ccompute", cclk)]
        self.w(d + "/properties", "\n".join("%s %s" % kv for kv in props))
        self.w(d + "/gpu_id", "%d" % gpu_id)
        self.w(d + "/name", name)
        self.w(d + "/mem_banks/0/properties",
               "heap_type 1\nsize_in_bytes %d\nflags 0\nwidth 8192\nmem_clk_max 1300" % vram)
        self.w(d + "/io_links/0/properties",
               "type 2\nversion_major 0\nversion_minor 0\nnode_from %d\nnode_to %d\n"
               "weight 20\nmin_latency 0\nmax_latency 0\nmin_bandwidth 312\n"
               "max_bandwidth 64000\nrecommended_transfer_size 0\nrecommended_sdma_engine_id_mask 0\n"
               "flags 1" % (n, cpu_node))


def link(speed, width, mspeed=None, mwidth=None):
    gts = {1: "2.5 GT/s PCIe", 2: "5.0 GT/s PCIe", 3: "8.0 GT/s PCIe",
           4: "16.0 GT/s PCIe", 5: "32.0 GT/s PCIe"}
    return (gts[speed], width, gts[mspeed or speed], mwidth or width)


def aspeed_bmc(h, bdf_bridge, bdf_vga, parent, numa, card=0, root_bus=None):
    """ASPEED AST2600 BMC: AST1150 bridge + VGA function bound to ast (no render node)."""
    h.pci(bdf_bridge, parent, 0x1a03, 0x1150, 0x060400, subsys=(0x1a03, 0x1150),
          rev=0x06, numa=numa, driver=None, link=link(2, 1), root_bus=root_bus)
    h.pci(bdf_vga, bdf_bridge, 0x1a03, 0x2000, 0x030000, subsys=(0x1a03, 0x2000),
          rev=0x52, numa=numa, driver="ast", module="ast", link=None, irq=16,
          boot_vga=True)
    h.drm(bdf_vga, card, None)


# --------------------------------------------------------------------------
# 1. h100-8x
# --------------------------------------------------------------------------

def make_h100(name="h100-8x", hostname="gpu-h100-01"):
    n0, n1 = "0-55,112-167", "56-111,168-223"
    h = Host(name, hostname, "6.8.0-45-generic", "x86_64",
             "ubuntu2204", 224, {0: n0, 1: n1})
    # PCH / root complex 0 + BMC
    h.pci("0000:00:00.0", None, 0x8086, 0x09a2, 0x088000, subsys=(0x8086, 0x0000),
          rev=0x20, numa=0)
    h.bridge("0000:00:1c.0", None, 0x8086, 0x1bb8, 0, link(1, 1), rev=0x11)
    aspeed_bmc(h, "0000:01:00.0", "0000:02:00.0", "0000:00:1c.0", 0, card=0)
    buses = [0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb]
    irqs = [252, 263, 274, 285, 296, 307, 318, 329]
    h.nvidia_common(8)
    for i, gb in enumerate(buses):
        numa = 0 if i < 4 else 1
        rb = gb - 3
        rp = "0000:%02x:01.0" % rb
        up = "0000:%02x:00.0" % (gb - 2)
        dn = "0000:%02x:00.0" % (gb - 1)
        gpu = "0000:%02x:00.0" % gb
        h.pci("0000:%02x:00.0" % rb, None, 0x8086, 0x09a2, 0x088000,
              subsys=(0x8086, 0x0000), rev=0x20, numa=numa)
        h.bridge(rp, None, 0x8086, 0x352a, numa, link(5, 16), rev=0x04)
        h.bridge(up, rp, 0x1000, 0xc030, numa, link(5, 16), rev=0xb0)
        h.bridge(dn, up, 0x1000, 0xc030, numa, link(5, 16), rev=0xb0)
        h.pci(gpu, dn, 0x10de, 0x2330, 0x030200, subsys=(0x10de, 0x16c1),
              rev=0xa1, numa=numa, driver="nvidia", module="nvidia",
              modversion=NV_VERSION, link=link(5, 16), irq=irqs[i])
        h.drm(gpu, i + 1, 128 + i)
        h.nvidia_info(gpu, "NVIDIA H100 80GB HBM3", irqs[i], i, "96.00.74.00.01")
        if i == 0:
            # ConnectX-7 on the same switch as GPU0 (second downstream port)
            dn2 = "0000:%02x:01.0" % (gb - 1)
            h.bridge(dn2, up, 0x1000, 0xc030, numa, link(5, 16), rev=0xb0)
            h.pci("0000:%02x:00.0" % (gb + 1), dn2, 0x15b3, 0x1021, 0x020700,
                  subsys=(0x15b3, 0x0041), rev=0x00, numa=numa,
                  driver="mlx5_core", module="mlx5_core", link=link(5, 16), irq=0)
    for c in (1, 2):
        h.node("dev/nvidia-caps/nvidia-cap%d" % c)
    h.w("proc/driver/nvidia/capabilities/mig/config",
        "DeviceFileMinor: 1\nDeviceFileMode: 256\nDeviceFileModify: 1")
    h.w("proc/driver/nvidia/capabilities/mig/monitor",
        "DeviceFileMinor: 2\nDeviceFileMode: 292\nDeviceFileModify: 1")
    return h


# --------------------------------------------------------------------------
# h100-8x-mig: h100-8x with MIG enabled on GPUs 0-2 (kernel interfaces only)
# --------------------------------------------------------------------------

# (gpu minor) -> {GI id: [CI ids]}. GPU0: seven 1g.10gb (GI ids 7..13 as the driver numbers
# them), GPU1: a 4g.40gb GI (1) with one CI and a 3g.40gb GI (2) split into two CIs, GPU2: a GI
# with no CI yet (not usable) beside a 3g.40gb with one. GPUs 3-7 have MIG disabled.
H100_MIG = {
    0: {gi: [0] for gi in range(7, 14)},
    1: {1: [0], 2: [0, 1]},
    2: {1: [], 2: [0]},
}


def mig_minor(g, gi, ci=None):
    """nv-caps.c numbering (facts F-2): 3 + 135*gpu + 9*gi (+ 1 + ci)."""
    return 3 + 135 * g + 9 * gi + (0 if ci is None else 1 + ci)


def make_h100_mig():
    h = make_h100("h100-8x-mig", "gpu-h100-mig-01")
    # The driver's static table: every possible GI and CI of 32 GPUs (nv-caps.c).
    lines = ["config 1", "monitor 2"]
    for g in range(32):
        for gi in range(15):
            lines.append("gpu%d/gi%d/access %d" % (g, gi, mig_minor(g, gi)))
            for ci in range(8):
                lines.append("gpu%d/gi%d/ci%d/access %d" % (g, gi, ci, mig_minor(g, gi, ci)))
    h.w("proc/driver/nvidia-caps/mig-minors", "\n".join(lines))
    h.w("proc/devices", "Character devices:\n  1 mem\n  4 /dev/vc/0\n  5 /dev/tty\n"
        "195 nvidia-frontend\n226 drm\n234 nvidia-caps-imex-channels\n235 nvidia-caps\n"
        "510 nvidia-uvm\n\nBlock devices:\n  8 sd\n259 blkext\n")
    caps = "proc/driver/nvidia/capabilities"
    for g, gis in H100_MIG.items():
        for gi, cis in gis.items():
            d = "%s/gpu%d/mig/gi%d" % (caps, g, gi)
            h.w(d + "/access", "DeviceFileMinor: %d\nDeviceFileMode: 292\nDeviceFileModify: 1"
                % mig_minor(g, gi))
            h.node("dev/nvidia-caps/nvidia-cap%d" % mig_minor(g, gi))
            for ci in cis:
                h.w(d + "/ci%d/access" % ci,
                    "DeviceFileMinor: %d\nDeviceFileMode: 292\nDeviceFileModify: 1"
                    % mig_minor(g, gi, ci))
                h.node("dev/nvidia-caps/nvidia-cap%d" % mig_minor(g, gi, ci))


# --------------------------------------------------------------------------
# 2. mi300x-8x
# --------------------------------------------------------------------------

# gpu_busy_percent per MI300X (index order): idle, partly and fully busy devices.
MI300X_BUSY = [0, 12, 37, 100, 5, 64, 88, 23]


def make_mi300x():
    n0, n1 = "0-47,96-143", "48-95,144-191"
    h = Host("mi300x-8x", "gpu-mi300x-01", "5.15.0-122-generic", "x86_64",
             "ubuntu2204.5", 192, {0: n0, 1: n1})
    buses = [0x05, 0x26, 0x46, 0x65, 0x85, 0xa6, 0xc6, 0xe5]
    for rb in (0x00, 0x20, 0x40, 0x60, 0x80, 0xa0, 0xc0, 0xe0):
        numa = 0 if rb < 0x80 else 1
        h.pci("0000:%02x:00.0" % rb, None, 0x1022, 0x14a4, 0x060000,
              subsys=(0x1022, 0x14a4), rev=0x01, numa=numa)
        h.pci("0000:%02x:01.0" % rb, None, 0x1022, 0x14a5, 0x060000,
              subsys=(0x0000, 0x0000), rev=0x00, numa=numa)
        # internal GPP bridge to the PCIe dummy function
        h.bridge("0000:%02x:07.1" % rb, None, 0x1022, 0x14a7, numa, link(5, 16))
        h.pci("0000:%02x:00.0" % (rb + 1), "0000:%02x:07.1" % rb, 0x1022, 0x14ac,
              0x130000, subsys=(0x1022, 0x14ac), rev=0x00, numa=numa, link=link(5, 16))
    # BMC on socket 1
    h.bridge("0000:c0:05.2", None, 0x1022, 0x14aa, 1, link(2, 1))
    aspeed_bmc(h, "0000:c2:00.0", "0000:c3:00.0", "0000:c0:05.2", 1, card=0)
    h.kfd_common()
    h.module("amdgpu", "6.8.5")
    h.w("opt/rocm-6.2.4/.info/version", "6.2.4-120")
    h.w("opt/rocm-6.2.4/.info/version-dev", "6.2.4-120")
    h.ln("opt/rocm", "rocm-6.2.4")
    cpus_per_node = 48
    h.kfd_cpu_node(0, cpus_per_node, 0, 811268456448)
    h.kfd_cpu_node(1, cpus_per_node, 48, 811563278336)
    vram = 206141652992
    # KFD node order is NOT PCI order: bus 0x65 enumerated before 0x46.
    kfd_order = [0x05, 0x26, 0x65, 0x46, 0x85, 0xa6, 0xc6, 0xe5]
    hive = 0xa1b7c2d4e5f60112
    uids = {}
    for i, gb in enumerate(buses):
        numa = 0 if gb < 0x80 else 1
        rb = gb & 0xe0
        rp = "0000:%02x:01.1" % rb
        up = "0000:%02x:00.0" % (gb - 2)
        dn = "0000:%02x:00.0" % (gb - 1)
        gpu = "0000:%02x:00.0" % gb
        h.bridge(rp, None, 0x1022, 0x14ab, numa, link(5, 16))
        h.bridge(up, rp, 0x1002, 0x14a0, numa, link(5, 16))
        h.bridge(dn, up, 0x1002, 0x14a1, numa, link(5, 16))
        d = h.pci(gpu, dn, 0x1002, 0x74a1, 0x120000, subsys=(0x1002, 0x74a1),
                  rev=0x00, numa=numa, driver="amdgpu", module="amdgpu",
                  modversion="6.8.5", link=link(5, 16), irq=0)
        uid = int(det_hex("mi300x-uid%d" % i, 16), 16) & 0x7fffffffffffffff
        uids[gb] = uid
        h.w(d + "/mem_info_vram_total", "%d" % vram)
        h.w(d + "/mem_info_vram_used", "%d" % (298844160 + 4096 * i))
        h.w(d + "/mem_info_vis_vram_total", "%d" % vram)
        # a job running on some GPUs: every device a different load
        h.w(d + "/gpu_busy_percent", "%d" % MI300X_BUSY[i])
        h.w(d + "/mem_busy_percent", "%d" % (MI300X_BUSY[i] // 3))
        h.w(d + "/unique_id", "%016x" % uid)
        h.w(d + "/current_compute_partition", "SPX")
        h.w(d + "/current_memory_partition", "NPS1")
        h.w(d + "/product_name", "AMD Instinct MI300X")
        h.drm(gpu, i + 1, 128 + i)
        # MI300X: no edge sensor, only junction (temp2) and mem (temp3)
        h.hwmon(gpu, 2 + i, {
            "name": "amdgpu",
            "temp2_input": "%d" % (41000 + 1000 * (i % 3)),
            "temp2_label": "junction",
            "temp3_input": "%d" % (36000 + 1000 * (i % 2)),
            "temp3_label": "mem",
            "power1_input": "%d" % (137000000 + 1000000 * i),
            "power1_label": "PPT",
            "power1_cap": "750000000",
            "power1_cap_max": "750000000",
            "power1_cap_min": "0",
            "in0_input": "1035",
            "in0_label": "vddgfx",
            "freq1_input": "132000000",
            "freq1_label": "sclk",
            "freq2_input": "1300000000",
            "freq2_label": "mclk",
        })
    for k, gb in enumerate(kfd_order):
        n = 2 + k
        i = buses.index(gb)
        numa = 0 if gb < 0x80 else 1
        h.kfd_gpu_node(n, "0000:%02x:00.0" % gb, gpu_id=int(det_hex("mi300x-gid%d" % i, 4), 16) + 1,
                       gfx=90402, vendor_id=0x1002, device_id=0x74a1,
                       render=128 + i, simd=1216, vram=vram, unique_id=uids[gb],
                       num_xcc=8, hive_id=hive, cpu_node=numa, fclk=2100,
                       cclk=3700, arrays=32, cu_per_array=2, waves=8, sdma=2,
                       xgmi_sdma=14, cp_queues=24, fw=177, sdma_fw=19,
                       capability=746039936)


# --------------------------------------------------------------------------
# 3. intel-max-arc
# --------------------------------------------------------------------------

def make_intel():
    n0, n1 = "0-27,56-83", "28-55,84-111"
    h = Host("intel-max-arc", "xpu-node-01", "6.8.0-45-generic", "x86_64",
             "ubuntu2404", 112, {0: n0, 1: n1})
    h.pci("0000:00:00.0", None, 0x8086, 0x09a2, 0x088000, subsys=(0x8086, 0x0000),
          rev=0x20, numa=0)
    h.bridge("0000:00:1c.0", None, 0x8086, 0x1bb8, 0, link(1, 1), rev=0x11)
    aspeed_bmc(h, "0000:01:00.0", "0000:02:00.0", "0000:00:1c.0", 0, card=0)
    # Data Center GPU Max 1550 x2 (i915), each behind the card's own switch
    maxes = [(0x29, 0, 1, 128, 2), (0x9a, 1, 2, 129, 3)]
    for gb, numa, card, render, hw in maxes:
        rb = gb - 3
        h.pci("0000:%02x:00.0" % rb, None, 0x8086, 0x09a2, 0x088000,
              subsys=(0x8086, 0x0000), rev=0x20, numa=numa)
        rp = "0000:%02x:01.0" % rb
        up = "0000:%02x:00.0" % (gb - 2)
        dn = "0000:%02x:01.0" % (gb - 1)
        gpu = "0000:%02x:00.0" % gb
        h.bridge(rp, None, 0x8086, 0x352a, numa, link(5, 16), rev=0x04)
        h.bridge(up, rp, 0x8086, 0x0b60, numa, link(4, 16), rev=0x01)
        h.bridge(dn, up, 0x8086, 0x0b5f, numa, link(4, 16), rev=0x01)
        h.pci(gpu, dn, 0x8086, 0x0bd5, 0x038000, subsys=(0x8086, 0x0000),
              rev=0x2f, numa=numa, driver="i915", module="i915",
              link=link(4, 16), irq=0)
        h.drm(gpu, card, render, card_files={
            "gt_cur_freq_mhz": "1600", "gt_act_freq_mhz": "0",
            "gt_max_freq_mhz": "1600", "gt_min_freq_mhz": "900",
            "gt_RP0_freq_mhz": "1600", "gt_RPn_freq_mhz": "300",
            "gt_boost_freq_mhz": "1600",
            "gt/gt0/rps_cur_freq_mhz": "1600", "gt/gt1/rps_cur_freq_mhz": "1600"})
        h.hwmon(gpu, hw, {
            "name": "i915",
            "energy1_input": "%d" % (81234567890 + gb),
            "power1_max": "600000000",
            "power1_rated_max": "600000000",
            "power1_max_interval": "1000",
            "in1_input": "880",
            "temp1_input": "38000",
        })
    # Arc A770 (xe) on socket 0
    h.bridge("0000:00:02.0", None, 0x8086, 0x352a, 0, link(4, 16), rev=0x04)
    h.bridge("0000:04:00.0", "0000:00:02.0", 0x8086, 0x4fa1, 0, link(4, 16), rev=0x01)
    h.bridge("0000:05:01.0", "0000:04:00.0", 0x8086, 0x4fa4, 0, link(4, 16), rev=0x00)
    arc = "0000:06:00.0"
    d = h.pci(arc, "0000:05:01.0", 0x8086, 0x56a0, 0x030000, subsys=(0x8086, 0x1020),
              rev=0x08, numa=0, driver="xe", module="xe", link=link(1, 1, 1, 1),
              irq=0, boot_vga=False)
    h.w(d + "/tile0/gt0/freq0/cur_freq", "2000")
    h.w(d + "/tile0/gt0/freq0/act_freq", "0")
    h.w(d + "/tile0/gt0/freq0/max_freq", "2400")
    h.w(d + "/tile0/gt0/freq0/min_freq", "300")
    h.w(d + "/tile0/gt0/freq0/rp0_freq", "2400")
    h.w(d + "/tile0/gt0/freq0/rpn_freq", "300")
    h.w(d + "/tile0/gt0/uevent", "")
    h.w(d + "/tile0/uevent", "")
    h.drm(arc, 3, 130)
    h.hwmon(arc, 4, {
        "name": "xe",
        "energy1_input": "12345678901",
        "power1_max": "225000000",
        "power1_rated_max": "225000000",
        "in1_input": "700",
        "temp2_input": "44000",
        "temp2_label": "pkg",
    })
    lib = "usr/lib/x86_64-linux-gnu"
    h.w(lib + "/libze_loader.so.1.17.6", "")
    h.ln(lib + "/libze_loader.so.1", "libze_loader.so.1.17.6")


# --------------------------------------------------------------------------
# 4. ascend-910b-8x
# --------------------------------------------------------------------------

def make_ascend(name="ascend-910b-8x", hostname="npu-910b-01"):
    nodes = {0: "0-47", 1: "48-95", 2: "96-143", 3: "144-191"}
    h = Host(name, hostname, "5.10.0-60.18.0.50.oe2203.aarch64",
             "aarch64", "openeuler2203", 192, nodes)
    # npu-smi order on Atlas 800T A2: NPU id (phy id) -> bus
    phy = {0xc1: 0, 0xc2: 1, 0x81: 2, 0x82: 3, 0x01: 4, 0x02: 5, 0x41: 6, 0x42: 7}
    for rb, numa in ((0x00, 0), (0x40, 1), (0x80, 2), (0xc0, 3)):
        for k in range(2):
            rp = "0000:%02x:%02x.0" % (rb, k * 8)
            gb = rb + 1 + k
            npu = "0000:%02x:00.0" % gb
            h.bridge(rp, None, 0x19e5, 0xa120, numa, link(4, 16), subsys=(0x19e5, 0x0000),
                     rev=0x21)
            d = h.pci(npu, rp, 0x19e5, 0xd802, 0x120000, subsys=(0x19e5, 0x6000),
                      rev=0x20, numa=numa, driver="devdrv_device_driver",
                      link=link(4, 16), irq=0, control="on")
            h.w(d + "/dev_id", "%d" % phy[gb])
    # Hi1822 NIC (Huawei vendor id, class 0x0200): must be ignored
    h.bridge("0000:00:10.0", None, 0x19e5, 0xa120, 0, link(3, 16), subsys=(0x19e5, 0x0000),
             rev=0x21)
    for fn in range(2):
        h.pci("0000:03:00.%d" % fn, "0000:00:10.0", 0x19e5, 0x1822, 0x020000,
              subsys=(0x19e5, 0xd139), rev=0x45, numa=0, driver="hinic",
              module="hinic", link=link(3, 16), irq=0)
    for i in range(8):
        h.node("dev/davinci%d" % i)
    for n in ("davinci_manager", "devmm_svm", "hisi_hdc"):
        h.node("dev/" + n)
    A = "usr/local/Ascend"
    h.w(A + "/driver/version.info", """Version=24.1.rc2
ascendhal_version=7.35.19
aicpu_version=1.0
tdt_version=1.0
log_version=1.0
prof_version=2.0
dvppkernels_version=1.1
tsfw_version=1.0
Innerversion=V100R001C18SPC001B232
compatible_version=[V100R001C30],[V100R001C13],[V100R001C15],[V100R001C17],[V100R001C18]
compatible_version_fw=[7.0.0,7.3.99]
package_version=24.1.rc2""")
    h.w(A + "/firmware/version.info", "Version=7.3.0.1.231\nfirmware_version=1.0\n"
        "package_version=24.1.rc2\ncompatible_version_drv=[23.0.rc3,23.0.rc3.],[23.0.0,23.0.0.],"
        "[24.0,24.0.],[24.1,24.1.]")
    T = A + "/ascend-toolkit"
    h.w(T + "/8.0.RC2/aarch64-linux/ascend_toolkit_install.info", """package_name=Ascend-cann-toolkit
version=8.0.RC2
innerversion=V100R001C18SPC001B232
compatible_version=[V100R001C15],[V100R001C17],[V100R001C18]
arch=aarch64
os=linux
path=/usr/local/Ascend/ascend-toolkit/8.0.RC2/aarch64-linux""")
    h.w(T + "/8.0.RC2/aarch64-linux/version.cfg", "runtime_running_version=[7.3.0.1.231:8.0.RC2]")
    h.ln(T + "/latest/aarch64-linux", "../8.0.RC2/aarch64-linux")
    h.w(T + "/latest/version.cfg", "runtime_running_version=[7.3.0.1.231:8.0.RC2]")
    h.w(T + "/set_env.sh", "export ASCEND_TOOLKIT_HOME=/usr/local/Ascend/ascend-toolkit/latest")
    return h


# --------------------------------------------------------------------------
# 5. workstation-mixed
# --------------------------------------------------------------------------

def make_workstation():
    h = Host("workstation-mixed", "ws-dual", "6.10.12-200.fc40.x86_64", "x86_64",
             "fedora40", 32, {0: "0-31"})
    h.pci("0000:00:00.0", None, 0x1022, 0x14d8, 0x060000, subsys=(0x1022, 0x14d8), numa=-1)
    h.pci("0000:00:01.0", None, 0x1022, 0x14da, 0x060000, subsys=(0x0000, 0x0000), numa=-1)
    # RTX 4090 + its HDMI audio function
    h.bridge("0000:00:01.1", None, 0x1022, 0x14db, -1, link(4, 16))
    h.nvidia_common(1)
    g = "0000:01:00.0"
    h.pci(g, "0000:00:01.1", 0x10de, 0x2684, 0x030000, subsys=(0x1043, 0x88e2),
          rev=0xa1, numa=-1, driver="nvidia", module="nvidia", modversion=NV_VERSION,
          link=link(4, 16), irq=134, control="on", boot_vga=False)
    h.pci("0000:01:00.1", "0000:00:01.1", 0x10de, 0x22ba, 0x040300, subsys=(0x1043, 0x88e2),
          rev=0xa1, numa=-1, driver="snd_hda_intel", module="snd_hda_intel",
          link=link(4, 16), irq=135)
    h.drm(g, 0, 129)
    h.nvidia_info(g, "NVIDIA GeForce RTX 4090", 134, 0, "95.02.3c.40.3a", dma_bits=47)
    # RX 7900 XTX (in-tree amdgpu, no module version) behind Navi switch
    h.bridge("0000:00:01.2", None, 0x1022, 0x14db, -1, link(4, 16))
    h.bridge("0000:02:00.0", "0000:00:01.2", 0x1002, 0x1478, -1, link(4, 16), rev=0x10)
    h.bridge("0000:03:00.0", "0000:02:00.0", 0x1002, 0x1479, -1, link(4, 16), rev=0x10)
    a = "0000:04:00.0"
    d = h.pci(a, "0000:03:00.0", 0x1002, 0x744c, 0x030000, subsys=(0x1da2, 0x471e),
              rev=0xc8, numa=-1, driver="amdgpu", module="amdgpu",
              link=link(4, 16), irq=140, control="auto", boot_vga=True)
    h.pci("0000:04:00.1", "0000:03:00.0", 0x1002, 0xab30, 0x040300, subsys=(0x1002, 0xab30),
          numa=-1, driver="snd_hda_intel", module="snd_hda_intel", link=link(4, 16), irq=141)
    vram = 25753026560
    h.w(d + "/mem_info_vram_total", "%d" % vram)
    h.w(d + "/mem_info_vram_used", "1207959552")
    h.w(d + "/mem_info_vis_vram_total", "%d" % vram)
    h.w(d + "/gpu_busy_percent", "3")
    h.w(d + "/mem_busy_percent", "1")
    h.drm(a, 1, 128)
    h.hwmon(a, 3, {
        "name": "amdgpu",
        "temp1_input": "41000", "temp1_label": "edge",
        "temp2_input": "45000", "temp2_label": "junction",
        "temp3_input": "48000", "temp3_label": "mem",
        "power1_average": "23000000", "power1_label": "PPT",
        "power1_cap": "327000000", "power1_cap_max": "347000000", "power1_cap_min": "0",
        "fan1_input": "0",
        "freq1_input": "500000000", "freq1_label": "sclk",
        "freq2_input": "96000000", "freq2_label": "mclk",
    })
    h.kfd_common()
    h.kfd_cpu_node(0, 32, 0, 67108864000, clk=5881)
    h.kfd_gpu_node(1, a, gpu_id=49842, gfx=110000, vendor_id=0x1002, device_id=0x744c,
                   render=128, simd=192, vram=vram, unique_id=0, num_xcc=1,
                   fclk=2500, cclk=5881, arrays=12, cu_per_array=8, waves=16,
                   sdma=2, cp_queues=8, lds=64, wave_front=32, fw=2140,
                   sdma_fw=21, capability=671588992)
    # NVMe to be ignored
    h.bridge("0000:00:02.1", None, 0x1022, 0x14db, -1, link(4, 4))
    h.pci("0000:05:00.0", "0000:00:02.1", 0x144d, 0xa80c, 0x010802, subsys=(0x144d, 0xa801),
          numa=-1, driver="nvme", module="nvme", link=link(4, 4), irq=0, control="auto")


# --------------------------------------------------------------------------
# 6. laptop-hybrid
# --------------------------------------------------------------------------

def make_laptop():
    h = Host("laptop-hybrid", "thinkpad", "6.8.0-45-generic", "x86_64",
             "ubuntu2404", 16, {0: "0-15"})
    h.pci("0000:00:00.0", None, 0x8086, 0x7d14, 0x060000, subsys=(0x17aa, 0x2302),
          rev=0x04, numa=-1)
    ig = "0000:00:02.0"
    h.pci(ig, None, 0x8086, 0x7d55, 0x030000, subsys=(0x17aa, 0x2302), rev=0x08,
          numa=-1, driver="i915", module="i915", link=None, irq=190,
          control="auto", boot_vga=True)
    h.drm(ig, 1, 128, card_files={
        "gt_cur_freq_mhz": "700", "gt_act_freq_mhz": "0", "gt_max_freq_mhz": "2250",
        "gt_min_freq_mhz": "100", "gt_RP0_freq_mhz": "2250", "gt_RPn_freq_mhz": "100",
        "gt_boost_freq_mhz": "2250"})
    # dGPU behind a CPU PCIe root port, runtime-suspended (D3cold)
    h.bridge("0000:00:06.0", None, 0x8086, 0x7e4d, -1, link(4, 8), rev=0x20)
    dg = "0000:01:00.0"
    h.nvidia_common(1)
    h.pci(dg, "0000:00:06.0", 0x10de, 0x2820, 0x030000, subsys=(0x17aa, 0x2302),
          rev=0xa1, numa=-1, driver="nvidia", module="nvidia", modversion=NV_VERSION,
          link=("Unknown", 63, "16.0 GT/s PCIe", 8), runtime="suspended",
          control="auto", irq=199, boot_vga=False)
    h.drm(dg, 0, 129)
    h.nvidia_info(dg, "NVIDIA GeForce RTX 4070 Laptop GPU", 199, 0, "??.??.??.??.??",
                  dma_bits=47, power=("Runtime D3 status:          Enabled (fine-grained)\n"
                                      "Video Memory:               Off\n\n"
                                      "GPU Hardware Support:\n"
                                      " Video Memory Self Refresh: Supported\n"
                                      " Video Memory Off:          Supported\n"))
    # NVMe + Wi-Fi to be ignored
    h.bridge("0000:00:1c.0", None, 0x8086, 0x7e38, -1, link(3, 1), rev=0x20)
    h.pci("0000:02:00.0", "0000:00:1c.0", 0x8086, 0x272b, 0x028000, subsys=(0x8086, 0x00f4),
          rev=0x1a, numa=-1, driver="iwlwifi", module="iwlwifi", link=link(2, 1), irq=0,
          control="auto")


# --------------------------------------------------------------------------
# 7. cloud-vm-none
# --------------------------------------------------------------------------

def make_vm():
    h = Host("cloud-vm-none", "vm-debian", "6.1.0-26-cloud-amd64", "x86_64",
             "debian12", 4, {0: "0-3"})
    h.pci("0000:00:00.0", None, 0x8086, 0x29c0, 0x060000, subsys=(0x1af4, 0x1100), numa=-1)
    vga = "0000:00:01.0"
    h.pci(vga, None, 0x1234, 0x1111, 0x030000, subsys=(0x1af4, 0x1100), rev=0x02,
          numa=-1, driver="bochs-drm", module="bochs", irq=0, control="auto",
          boot_vga=True)
    h.drm(vga, 0, None)
    for fn in (0, 1):
        h.bridge("0000:00:02.%d" % fn, None, 0x1b36, 0x000c, -1, link(1, 1))
    h.pci("0000:01:00.0", "0000:00:02.0", 0x1af4, 0x1041, 0x020000, subsys=(0x1af4, 0x1100),
          rev=0x01, numa=-1, driver="virtio-pci", module="virtio_pci",
          link=link(1, 1), irq=0, control="auto")
    h.pci("0000:02:00.0", "0000:00:02.1", 0x1af4, 0x1042, 0x010000, subsys=(0x1af4, 0x1100),
          rev=0x01, numa=-1, driver="virtio-pci", module="virtio_pci",
          link=link(1, 1), irq=0, control="auto")
    h.pci("0000:00:1f.0", None, 0x8086, 0x2918, 0x060100, subsys=(0x1af4, 0x1100),
          rev=0x02, numa=-1, driver="lpc_ich", module="lpc_ich")
    h.pci("0000:00:1f.2", None, 0x8086, 0x2922, 0x010601, subsys=(0x1af4, 0x1100),
          rev=0x02, numa=-1, driver="ahci", module="ahci", irq=30)
    h.pci("0000:00:1f.3", None, 0x8086, 0x2930, 0x0c0500, subsys=(0x1af4, 0x1100),
          rev=0x02, numa=-1, driver="i801_smbus", module="i2c_i801", irq=16)


# --------------------------------------------------------------------------
# 9-11. one-GPU NVIDIA hosts for each /proc/driver/nvidia/version flavour
# --------------------------------------------------------------------------
# The driver prints "NVRM version: %s" with its id string (kernel-open/nvidia/nv-procfs.c,
# NVIDIA/open-gpu-kernel-modules@1739a20efc4a). Open modules (R515+, the default from R560 on
# Turing and newer) say "Open Kernel Module for <arch>"; a GRID guest driver prints the
# proprietary form with its own version (vGPU 16.5 guest: 535.161.08).
NV_VARIANTS = {
    "nvidia-open-l40s": dict(
        hostname="l40s-01", arch="x86_64", os_key="ubuntu2404", version="560.35.03",
        device=0x26b9, subsys=(0x10de, 0x1851), model="NVIDIA L40S",
        line="NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  560.35.03  Release Build  "
             "(dvs-builder@U16-I3-B03-4-3)  Fri Aug 16 21:42:42 UTC 2024\n"),
    "nvidia-open-aarch64": dict(
        hostname="arm-gpu-01", arch="aarch64", os_key="ubuntu2404", version="580.95.05",
        device=0x2335, subsys=(0x10de, 0x18be), model="NVIDIA H200",
        line="NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  580.95.05  Release Build  "
             "(dvs-builder@U22-I3-AE18-23-3)  Tue Sep 23 09:17:59 UTC 2025\n"),
    "nvidia-grid-guest": dict(
        hostname="vgpu-guest-01", arch="x86_64", os_key="ubuntu2204", version="535.161.08",
        device=0x20f1, subsys=(0x10de, 0x145f), model="GRID A100-40C",
        line="NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.161.08  "
             "Wed Mar 20 13:45:15 UTC 2024\n"),
}


def make_nvidia_variant(name):
    v = NV_VARIANTS[name]
    h = Host(name, v["hostname"], "6.8.0-45-generic", v["arch"], v["os_key"], 16, {0: "0-15"})
    h.pci("0000:00:00.0", None, 0x8086, 0x29c0, 0x060000, subsys=(0x1af4, 0x1100), numa=-1)
    h.bridge("0000:00:02.0", None, 0x1b36, 0x000c, -1, link(5, 16))
    h.nvidia_common(1, v["line"] + "GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04) \n",
                    v["version"])
    g = "0000:01:00.0"
    h.pci(g, "0000:00:02.0", 0x10de, v["device"], 0x030200, subsys=v["subsys"], rev=0xa1,
          numa=-1, driver="nvidia", module="nvidia", modversion=v["version"], link=link(5, 16),
          irq=40)
    h.drm(g, 0, 128)
    h.nvidia_info(g, v["model"], 40, 0, "96.00.74.00.01")


# --------------------------------------------------------------------------
# 8. hygon-dcu
# --------------------------------------------------------------------------

def make_hygon():
    n0, n1 = "0-15,32-47", "16-31,48-63"
    h = Host("hygon-dcu", "dcu-k100-01", "5.15.0-105-generic", "x86_64",
             "ubuntu2204", 64, {0: n0, 1: n1})
    dcus = [(0x00, 0x06, 0), (0x80, 0x86, 1)]
    for rb, _, numa in dcus:
        h.pci("0000:%02x:00.0" % rb, None, 0x1d94, 0x1450, 0x060000, subsys=(0x1d94, 0x1450),
              numa=numa)
        h.pci("0000:%02x:01.0" % rb, None, 0x1d94, 0x1452, 0x060000, subsys=(0x0000, 0x0000),
              numa=numa)
        h.bridge("0000:%02x:07.1" % rb, None, 0x1d94, 0x1454, numa, link(3, 16))
        h.pci("0000:%02x:00.0" % (rb + 1), "0000:%02x:07.1" % rb, 0x1d94, 0x145a, 0x130000,
              subsys=(0x1d94, 0x145a), numa=numa, link=link(3, 16))
    h.bridge("0000:80:03.1", None, 0x1d94, 0x1453, 1, link(2, 1))
    aspeed_bmc(h, "0000:82:00.0", "0000:83:00.0", "0000:80:03.1", 1, card=0)
    h.kfd_common()
    h.node("dev/mkfd")
    h.module("hydcu", "6.3.28-V1.3.0b")
    h.kfd_cpu_node(0, 32, 0, 270582939648, clk=2500)
    h.kfd_cpu_node(1, 32, 16, 270582939648, clk=2500)
    vram = 68702699520
    for i, (rb, gb, numa) in enumerate(dcus):
        rp = "0000:%02x:03.1" % rb if rb == 0 else "0000:%02x:03.2" % rb
        h.bridge(rp, None, 0x1d94, 0x1453, numa, link(4, 16))
        g = "0000:%02x:00.0" % gb
        d = h.pci(g, rp, 0x1d94, 0x6210, 0x0b4000, subsys=(0x1d94, 0x6210), rev=0x01,
                  numa=numa, driver="hydcu", module="hydcu", modversion="6.3.28-V1.3.0b",
                  link=link(4, 16), irq=0)
        uid = int(det_hex("hygon-uid%d" % i, 16), 16) & 0x7fffffffffffffff
        h.w(d + "/mem_info_vram_total", "%d" % vram)
        h.w(d + "/mem_info_vram_used", "2097152")
        h.w(d + "/gpu_busy_percent", "0")
        h.w(d + "/unique_id", "%016x" % uid)
        h.drm(g, 1 + i, 128 + i)
        h.kfd_gpu_node(2 + i, g, gpu_id=int(det_hex("hygon-gid%d" % i, 4), 16) + 1,
                       gfx=90208, vendor_id=0x1d94, device_id=0x6210, render=128 + i,
                       simd=480, vram=vram, unique_id=uid, num_xcc=1, cpu_node=numa,
                       fclk=1500, cclk=2500, arrays=8, cu_per_array=15, waves=10,
                       sdma=2, cp_queues=24, fw=0, sdma_fw=0, capability=0)
    h.w("opt/dtk-25.04.4/.info/version", "25.04.4")
    h.ln("opt/dtk", "dtk-25.04.4")


# --------------------------------------------------------------------------
# 9. thead-ppu (T-Head PPU, a vendor that is data only: no probe code of its own)
# --------------------------------------------------------------------------

def make_thead():
    # Nodes, driver and KMD version as public PPU install logs and gpustack/runtime show them;
    # the PCI device id and class of the PPU are not published (see data/vendors.yaml).
    n0, n1 = "0-47,96-143", "48-95,144-191"
    h = Host("thead-ppu-4x", "ppu-node-01", "5.10.134-16.3.al8.x86_64", "x86_64",
             "ubuntu2204", 192, {0: n0, 1: n1})
    h.pci("0000:00:00.0", None, 0x8086, 0x09a2, 0x060000, subsys=(0x8086, 0x0000), numa=0)
    h.pci("0000:80:00.0", None, 0x8086, 0x09a2, 0x060000, subsys=(0x8086, 0x0000), numa=1)
    ppus = [(0x00, 0x10, 0), (0x00, 0x20, 0), (0x80, 0x90, 1), (0x80, 0xa0, 1)]
    h.module("alipci")
    h.module("alixpu", "1.5.1-1d747a")
    for i, (rb, gb, numa) in enumerate(ppus):
        rp = "0000:%02x:%02x.0" % (rb, 1 + i % 2)
        h.bridge(rp, None, 0x8086, 0x347a, numa, link(5, 16))
        g = "0000:%02x:00.0" % gb
        h.pci(g, rp, 0x1ded, 0x8810, 0x120000, subsys=(0x1ded, 0x0001), rev=0x01,
              numa=numa, driver="alixpu", module="alixpu", modversion="1.5.1-1d747a",
              link=link(5, 16), irq=0)
        h.node("dev/alixpu_ppu%d" % i)
    h.node("dev/alixpu")
    h.node("dev/alixpu_ctl")
    # Alibaba Cloud's Elastic RDMA adapter shares vendor id 0x1ded (class 0x0200): ignored.
    h.bridge("0000:00:03.0", None, 0x8086, 0x347a, 0, link(3, 8))
    h.pci("0000:05:00.0", "0000:00:03.0", 0x1ded, 0x107f, 0x020000, subsys=(0x1ded, 0x107f),
          numa=0, driver="erdma", module="erdma", link=link(3, 8), irq=0)


# --------------------------------------------------------------------------
# acme-host (tests/registry/acme-host): a made-up vendor known only to the
# test registry tests/registry/acme/vendors.yaml
# --------------------------------------------------------------------------

def make_acme():
    h = Host("acme-host", "acme-01", "6.1.0-26-amd64", "x86_64", "debian12", 16,
             {0: "0-7", 1: "8-15"}, base=HERE.parent / "registry")
    h.pci("0000:00:00.0", None, 0x8086, 0x09a2, 0x060000, subsys=(0x8086, 0x0000), numa=0)
    h.module("acme_npu", "3.2.1")
    for i, (rp, g, numa) in enumerate((("0000:00:01.0", "0000:01:00.0", 0),
                                       ("0000:00:02.0", "0000:02:00.0", 1))):
        h.bridge(rp, None, 0x8086, 0x347a, numa, link(4, 16))
        h.pci(g, rp, 0x1f9a, 0x0a01, 0x120000, subsys=(0x1f9a, 0x0001), numa=numa,
              driver="acme_npu", module="acme_npu", modversion="3.2.1", link=link(4, 16), irq=0)
        h.hwmon(g, i, {"name": "acme", "temp1_input": "%d" % (41000 + 1000 * i),
                       "power1_input": "%d" % (75000000 + i)})
        h.node("dev/acme%d" % i)
    h.node("dev/acme_ctl")
    h.node("dev/acme_display")
    h.w("opt/acme/lib/libacme_ml.so.1", "not a real library")
    h.w("opt/acme/version", "2.4.0")


# --------------------------------------------------------------------------
# mi300x-8x-cpx: 8x MI300X in CPX mode, KFD topology from a real public capture
# --------------------------------------------------------------------------

# KFD topology of a real 8x MI300X node in CPX mode, copied byte for byte from
# ROCm/k8s-device-plugin@ed7646843003e8f0b6a0630346f01bb4d1ecff2e
# testdata/topo-mi300-cpx/topology (last changed in 4e0e694ea6f66054db36cda86ba80410c6cec067;
# Apache-2.0): the node `properties`, their `io_links/<M>/properties` (xGMI type 11 between
# every two partitions: weight 13 inside a GPU, 41 across GPUs; PCIe to the CPU node),
# generation_id and system_properties.
MI300X_CPX_CAPTURE = HERE.parent / "captures" / "rocm-k8s-device-plugin" / "topo-mi300-cpx"


def xcp_platform_device(h, n, card=None, render=None):
    """/sys/devices/platform/amdgpu_xcp_<n>: a partition's DRM device (partitions 1..7)."""
    d = "sys/devices/platform/amdgpu_xcp_%d" % n
    h.w(d + "/uevent", "")
    h.ln(d + "/subsystem", "../../../bus/platform")
    h.ln("sys/bus/platform/devices/amdgpu_xcp_%d" % n, "../../../devices/platform/amdgpu_xcp_%d" % n)
    for kind, minor in (("card", card), ("renderD", render)):
        if minor is None:
            continue
        nm = "%s%d" % (kind, minor)
        h.w("%s/drm/%s/dev" % (d, nm), "226:%d" % minor)
        h.w("%s/drm/%s/uevent" % (d, nm),
            "MAJOR=226\nMINOR=%d\nDEVNAME=dri/%s\nDEVTYPE=drm_minor" % (minor, nm))
        h.ln("%s/drm/%s/device" % (d, nm), "../../../amdgpu_xcp_%d" % n)
        h.ln("sys/class/drm/%s" % nm, "../../devices/platform/amdgpu_xcp_%d/drm/%s" % (n, nm))
        h.node("dev/dri/%s" % nm)


def make_mi300x_cpx():
    n0, n1 = "0-95", "96-191"
    h = Host("mi300x-8x-cpx", "gpu-mi300x-cpx-01", "6.8.0-52-generic", "x86_64",
             "ubuntu2204.5", 192, {0: n0, 1: n1})
    t = "sys/class/kfd/kfd/topology"
    for f in sorted(MI300X_CPX_CAPTURE.rglob("*")):
        if f.is_file():
            rel = f.relative_to(MI300X_CPX_CAPTURE).as_posix()
            (h.root / t / rel).parent.mkdir(parents=True, exist_ok=True)
            (h.root / t / rel).write_bytes(f.read_bytes())
    h.w("sys/class/kfd/kfd/dev", "235:0")
    h.w("sys/class/kfd/kfd/uevent", "MAJOR=235\nMINOR=0\nDEVNAME=kfd")
    h.node("dev/kfd")
    h.module("amdgpu", "6.10.5")
    # PCI buses and unique ids are the capture's (location_id >> 8, unique_id per GPU).
    buses = [0x05, 0x27, 0x47, 0x65, 0x85, 0xa7, 0xc7, 0xe5]
    uids = {}
    for node in sorted((MI300X_CPX_CAPTURE / "nodes").iterdir(), key=lambda p: int(p.name)):
        props = dict(l.split(" ", 1) for l in (node / "properties").read_text().splitlines())
        if int(props["simd_count"]):
            uids.setdefault(int(props["location_id"]) >> 8, int(props["unique_id"]))
    for rb in (0x00, 0x20, 0x40, 0x60, 0x80, 0xa0, 0xc0, 0xe0):
        numa = 0 if rb < 0x80 else 1
        h.pci("0000:%02x:00.0" % rb, None, 0x1022, 0x14a4, 0x060000,
              subsys=(0x1022, 0x14a4), rev=0x01, numa=numa)
    h.bridge("0000:c0:05.2", None, 0x1022, 0x14aa, 1, link(2, 1))
    aspeed_bmc(h, "0000:c2:00.0", "0000:c3:00.0", "0000:c0:05.2", 1, card=0)
    xcp = 0
    for g, gb in enumerate(buses):
        numa = 0 if gb < 0x80 else 1
        rb = gb & 0xe0
        rp = "0000:%02x:01.1" % rb
        up = "0000:%02x:00.0" % (gb - 2)
        dn = "0000:%02x:00.0" % (gb - 1)
        gpu = "0000:%02x:00.0" % gb
        h.bridge(rp, None, 0x1022, 0x14ab, numa, link(5, 16))
        h.bridge(up, rp, 0x1002, 0x14a0, numa, link(5, 16))
        h.bridge(dn, up, 0x1002, 0x14a1, numa, link(5, 16))
        d = h.pci(gpu, dn, 0x1002, 0x74a1, 0x120000, subsys=(0x1002, 0x74a1),
                  rev=0x00, numa=numa, driver="amdgpu", module="amdgpu",
                  modversion="6.10.5", link=link(5, 16), irq=0)
        h.w(d + "/unique_id", "%016x" % uids[gb])
        # Not in the capture (it has KFD only): the mode files a CPX/NPS4 host shows.
        h.w(d + "/current_compute_partition", "CPX")
        h.w(d + "/available_compute_partition", "SPX, DPX, QPX, CPX")
        h.w(d + "/current_memory_partition", "NPS4")
        h.w(d + "/available_memory_partition", "NPS1, NPS4")
        h.w(d + "/product_name", "AMD Instinct MI300X")
        # Partition 0 is the PCI device's own DRM device; 1..7 are amdgpu_xcp platform
        # devices. Render minors stride 8 per GPU as in the capture; card minors (0..63) run
        # out at the 64th partition because the BMC holds card0: the capture's GPU 0xe5 has
        # no partition 7 (render minor 191 absent) -- the kernel's "Skip xcp node" path.
        h.drm(gpu, 1 + 8 * g, 128 + 8 * g)
        for p in range(1, 8):
            card = 1 + 8 * g + p
            if card <= 63:
                xcp_platform_device(h, xcp, card, 128 + 8 * g + p)
            else:
                xcp_platform_device(h, xcp)
            xcp += 1


HOSTS = {
    "h100-8x": make_h100,
    "mi300x-8x": make_mi300x,
    "mi300x-8x-cpx": make_mi300x_cpx,
    "h100-8x-mig": make_h100_mig,
    "intel-max-arc": make_intel,
    "ascend-910b-8x": make_ascend,
    "workstation-mixed": make_workstation,
    "laptop-hybrid": make_laptop,
    "cloud-vm-none": make_vm,
    "hygon-dcu": make_hygon,
    "thead-ppu-4x": make_thead,
    "acme-host": make_acme,
    "nvidia-open-l40s": lambda: make_nvidia_variant("nvidia-open-l40s"),
    "nvidia-open-aarch64": lambda: make_nvidia_variant("nvidia-open-aarch64"),
    "nvidia-grid-guest": lambda: make_nvidia_variant("nvidia-grid-guest"),
}
HOSTS.update(__import__("make_topology_hosts").hosts(sys.modules[__name__]))
HOSTS.update(__import__("make_partition_hosts").hosts(sys.modules[__name__]))


def main(argv):
    names = argv[1:] or list(HOSTS)
    for n in names:
        if n not in HOSTS:
            sys.stderr.write("make_hosts.py: unknown host %r (known: %s)\n"
                             % (n, " ".join(HOSTS)))
            return 2
    for n in names:
        HOSTS[n]()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
