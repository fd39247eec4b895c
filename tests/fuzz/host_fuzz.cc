// Whole-host discovery: the input becomes the content of a few sysfs/procfs files of a copied
// fixture host, then probe() runs over it with vendor libraries off. The fixtures are copied
// once (a static); each input rewrites only its files and puts the originals back afterwards.
//
// Input: byte 0 picks the fixture; the rest is chunks separated by 0x1e. A chunk's first byte
// picks the file (low 7 bits, modulo the fixture's file count; bit 7 set removes the file)
// and the rest of the chunk is written as its content.
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "probe/probe.h"
#include "render/inventory_json.h"
#include "render/inventory_text.h"
#include "render/json_text.h"
#include "util/cpulist.h"

#ifndef ANYGPU_SOURCE_DIR
#error "ANYGPU_SOURCE_DIR must name the repository root"
#endif

namespace fs = std::filesystem;
using namespace anygpu;

namespace {

struct FixtureSpec {
  const char* name;
  std::vector<std::string> files;      // host paths the input may rewrite
  std::vector<std::string> survivors;  // devices none of those files belong to
};

const std::vector<FixtureSpec>& specs() {
  static const std::vector<FixtureSpec> kSpecs = {
      {"h100-8x",
       {"/sys/bus/pci/devices/0000:18:00.0/class", "/sys/bus/pci/devices/0000:18:00.0/vendor",
        "/sys/bus/pci/devices/0000:18:00.0/device", "/sys/bus/pci/devices/0000:18:00.0/numa_node",
        "/sys/bus/pci/devices/0000:18:00.0/local_cpulist",
        "/sys/bus/pci/devices/0000:18:00.0/current_link_speed",
        "/sys/bus/pci/devices/0000:18:00.0/current_link_width",
        "/sys/bus/pci/devices/0000:18:00.0/power/runtime_status",
        "/proc/driver/nvidia/gpus/0000:18:00.0/information", "/proc/driver/nvidia/version",
        "/sys/module/nvidia/version", "/etc/os-release", "/sys/devices/system/cpu/online",
        "/sys/devices/system/node/online", "/proc/sys/kernel/hostname"},
       {"0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0", "0000:9a:00.0", "0000:ab:00.0",
        "0000:ba:00.0", "0000:db:00.0"}},
      {"mi300x-8x",
       {"/sys/bus/pci/devices/0000:05:00.0/class", "/sys/bus/pci/devices/0000:05:00.0/vendor",
        "/sys/bus/pci/devices/0000:05:00.0/device", "/sys/bus/pci/devices/0000:05:00.0/numa_node",
        "/sys/bus/pci/devices/0000:05:00.0/local_cpulist",
        "/sys/bus/pci/devices/0000:05:00.0/current_link_speed",
        "/sys/bus/pci/devices/0000:05:00.0/current_link_width",
        "/sys/bus/pci/devices/0000:05:00.0/mem_info_vram_total",
        "/sys/bus/pci/devices/0000:05:00.0/unique_id",
        "/sys/bus/pci/devices/0000:05:00.0/power/runtime_status",
        "/sys/class/kfd/kfd/topology/nodes/2/properties",
        "/sys/class/kfd/kfd/topology/nodes/0/properties", "/sys/module/amdgpu/version",
        "/opt/rocm/.info/version", "/etc/os-release"},
       {"0000:26:00.0", "0000:46:00.0", "0000:65:00.0", "0000:85:00.0", "0000:a6:00.0",
        "0000:c6:00.0", "0000:e5:00.0"}},
      {"laptop-hybrid",
       {"/sys/bus/pci/devices/0000:01:00.0/class", "/sys/bus/pci/devices/0000:01:00.0/device",
        "/sys/bus/pci/devices/0000:01:00.0/numa_node",
        "/sys/bus/pci/devices/0000:01:00.0/local_cpulist",
        "/sys/bus/pci/devices/0000:01:00.0/power/runtime_status",
        "/sys/bus/pci/devices/0000:01:00.0/current_link_width",
        "/proc/driver/nvidia/gpus/0000:01:00.0/information", "/proc/driver/nvidia/version",
        "/etc/os-release", "/sys/devices/system/cpu/online"},
       {"0000:00:02.0"}},
  };
  return kSpecs;
}

struct Host {
  std::string root;
  std::vector<std::optional<std::string>> originals;  // per file; nullopt: did not exist
};

std::optional<std::string> slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(f), {});
}

void put(const std::string& path, std::string_view content) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!f) throw std::runtime_error("cannot write " + path);
}

// Memory-backed when possible: probe() opens hundreds of files per input, and on a disk-backed
// /tmp the one-time copy alone took seconds. ANYGPU_FUZZ_TMPDIR overrides.
fs::path scratch_dir() {
  if (const char* d = std::getenv("ANYGPU_FUZZ_TMPDIR"); d && *d) return d;
  if (::access("/dev/shm", W_OK | X_OK) == 0) return "/dev/shm";
  return fs::temp_directory_path();
}

class Hosts {
 public:
  Hosts() {
    std::string tmpl = (scratch_dir() / "anygpu-fuzz-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
    for (const auto& spec : specs()) {
      Host h;
      h.root = dir_ + "/" + spec.name;
      fs::copy(std::string(ANYGPU_SOURCE_DIR) + "/tests/hosts/" + spec.name, h.root,
               fs::copy_options::recursive | fs::copy_options::copy_symlinks);
      for (const auto& f : spec.files) h.originals.push_back(slurp(h.root + f));
      hosts_.push_back(std::move(h));
    }
  }
  ~Hosts() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  Host& operator[](size_t i) { return hosts_[i]; }

 private:
  std::string dir_;
  std::vector<Host> hosts_;
};

Hosts& hosts() {
  static Hosts h;
  return h;
}

void check_inventory(const Inventory& inv, const FixtureSpec& spec) {
  const auto& h = inv.host;
  for (const auto* s : {&h.hostname, &h.kernel, &h.os, &h.arch})
    if (*s) FUZZ_CHECK(!(*s)->empty());
  if (h.cpus) FUZZ_CHECK(*h.cpus > 0 && *h.cpus <= kMaxCpu + 1);
  if (h.numa_nodes) FUZZ_CHECK(*h.numa_nodes > 0 && *h.numa_nodes <= kMaxCpu + 1);

  std::set<std::string> seen;
  std::map<std::string, int> next_index;
  for (const auto& d : inv.devices) {
    auto bdf = d.pci.address.str();
    FUZZ_CHECK(seen.insert(bdf).second);
    FUZZ_CHECK(!d.vendor.empty() && !d.vendor_name.empty());
    FUZZ_CHECK(d.index == next_index[d.vendor]++);
    if (d.name) FUZZ_CHECK(fuzz::clean_value(*d.name));
    if (d.uuid) FUZZ_CHECK(fuzz::clean_value(*d.uuid));
    if (d.arch) FUZZ_CHECK(!d.arch->empty());
    if (d.numa_node) FUZZ_CHECK(*d.numa_node >= 0 && *d.numa_node <= 4095);
    if (d.cpu_affinity) {
      auto cpus = parse_cpulist(*d.cpu_affinity);
      FUZZ_CHECK(cpus.ok() && !cpus->empty() && format_cpulist(*cpus) == *d.cpu_affinity);
    }
    if (d.pci.link.speed_gts)
      FUZZ_CHECK(std::isfinite(*d.pci.link.speed_gts) && *d.pci.link.speed_gts > 0 &&
                 *d.pci.link.speed_gts <= 1000);
    if (d.pci.link.width) FUZZ_CHECK(*d.pci.link.width >= 1 && *d.pci.link.width <= 32);
    if (d.driver) {
      FUZZ_CHECK(!d.driver->name.empty());
      if (d.driver->version) FUZZ_CHECK(fuzz::clean_value(*d.driver->version));
    }
    if (d.memory_total_bytes) FUZZ_CHECK(*d.memory_total_bytes > 0);
    if (d.minor) FUZZ_CHECK(*d.minor >= 0 && *d.minor < 4096);
    for (const auto& n : d.device_nodes) FUZZ_CHECK(n.rfind("/dev/", 0) == 0);
    if (d.card_node) FUZZ_CHECK(d.card_node->rfind("/dev/dri/card", 0) == 0);
    if (d.render_node) FUZZ_CHECK(d.render_node->rfind("/dev/dri/renderD", 0) == 0);
    FUZZ_CHECK(std::find(d.sources.begin(), d.sources.end(), "sysfs") != d.sources.end());
  }
  // Damage to one device's files never costs another device.
  for (const auto& bdf : spec.survivors) FUZZ_CHECK(seen.count(bdf) == 1);
  for (const auto& w : inv.diagnostics.warnings()) FUZZ_CHECK(!w.empty());
  for (const auto& rt : inv.runtimes) FUZZ_CHECK(!rt.version.empty());

  // Both renderers take whatever was found (invalid UTF-8 is replaced, never thrown).
  FUZZ_CHECK(!dump_json(inventory_to_json(inv)).empty());
  (void)inventory_to_text(inv);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > (2 << 20)) return 0;
  size_t which = data[0] % specs().size();
  const auto& spec = specs()[which];
  Host& host = hosts()[which];

  std::vector<bool> touched(spec.files.size(), false);
  auto text = fuzz::as_text(data + 1, size - 1);
  size_t start = 0;
  while (start <= text.size()) {
    auto end = text.find('\x1e', start);
    if (end == std::string_view::npos) end = text.size();
    auto chunk = text.substr(start, end - start);
    start = end + 1;
    if (chunk.empty()) continue;
    auto sel = static_cast<unsigned char>(chunk[0]);
    size_t i = (sel & 0x7f) % spec.files.size();
    std::string path = host.root + spec.files[i];
    touched[i] = true;
    std::error_code ec;
    if (sel & 0x80) {
      fs::remove(path, ec);
    } else {
      fs::create_directories(fs::path(path).parent_path(), ec);
      put(path, chunk.substr(1));
    }
  }

  HostOptions o;
  o.root = host.root;
  o.load_libraries = false;
  Inventory inv = probe(HostRoot(o));
  check_inventory(inv, spec);

  for (size_t i = 0; i < touched.size(); ++i) {
    if (!touched[i]) continue;
    std::string path = host.root + spec.files[i];
    std::error_code ec;
    if (host.originals[i])
      put(path, *host.originals[i]);
    else
      fs::remove(path, ec);
  }
  return 0;
}
