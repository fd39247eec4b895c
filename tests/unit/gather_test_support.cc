#include "gather_test_support.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cluster/core_map.h"
#include "doctor/doctor.h"
#include "health/health.h"
#include "health/render.h"
#include "metrics/backend.h"
#include "probe/probe.h"
#include "registry/registry.h"
#include "render/inventory_json.h"
#include "test_support.h"
#include "util/strings.h"

namespace fs = std::filesystem;

namespace anygpu::test {

namespace {

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size())
    s.replace(at, from.size(), to);
  return s;
}

HostRoot host_at(const std::string& root) {
  HostOptions o;
  o.root = root;
  o.load_libraries = false;
  return HostRoot(o);
}

std::string cdi_kind_of(const Inventory& inv) {
  for (const auto& d : inv.devices)
    if (const auto* v = Registry::builtin().vendor(d.vendor); v && !v->cdi_kind.empty())
      return std::string(v->cdi_kind);
  return "nvidia.com/gpu";
}

std::string spec(const std::string& kind, const std::string& name, const std::string& node,
                 const std::string& gone_library) {
  return "cdiVersion: \"0.6.0\"\nkind: " + kind + "\ndevices:\n  - name: \"" + name +
         "\"\n    containerEdits:\n      deviceNodes: [{path: " + node +
         "}]\ncontainerEdits:\n  mounts:\n    - {hostPath: " + gone_library +
         ", containerPath: " + gone_library + ", options: [ro, nosuid, nodev, bind]}\n";
}

std::string group_file(const std::string& user) {
  return "root:x:0:\nvideo:x:44:" + user + "\nrender:x:109:" + user + ",bob\nHwHiAiUser:x:1000:\n" +
         user + ":x:1001:\nnogroup:x:65534:\n";
}

std::string kernel_log(const Planted& p) {
  std::string bus = p.first_bus.empty() ? "0000:00:02.0" : p.first_bus;
  std::string xid_bus = bus.substr(0, bus.rfind('.'));
  return "6,1,100000,-;Linux version 6.8.0-45-generic (buildd@lcy02-amd64-080)\n"
         "3,100,1000000,-;NVRM: Xid (PCI:" +
         xid_bus +
         "): 79, pid=4242, name=python3, GPU has fallen off the bus.\n"
         "3,101,2000000,-;amdgpu " +
         bus +
         ": amdgpu: GPU reset begin!\n SUBSYSTEM=pci\n"
         " DEVICE=+pci:" +
         bus +
         "\n"
         "6,102,3000000,-;mlx5_core 0000:19:00.0 enp25s0: Link up, peer " +
         p.mac +
         "\n"
         "6,103,4000000,-;systemd-logind[811]: New session 3 of user " +
         p.user + " on " + p.hostname + ".\n";
}

// Config space with AER (0x100) then DSN (0x140): what `lspci -vvv` shows as "Device Serial
// Number 88-77-66-55-44-33-22-11".
std::string config_with_dsn(const std::string& serial) {
  std::string c(4096, '\0');
  auto put32 = [&](size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) c[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
  };
  put32(0, 0x233010de);
  put32(0x100, 0x14010001);  // AER, version 1, next 0x140
  put32(0x140, 0x00010003);  // DSN, version 1, last
  c.replace(0x144, 8, serial);
  return c;
}

void chmod_nodes(const std::string& dev) {
  for (auto it = fs::recursive_directory_iterator(dev); it != fs::recursive_directory_iterator();
       ++it)
    if (it->is_regular_file() && !it->is_symlink())
      fs::permissions(it->path(), fs::perms::owner_read | fs::perms::owner_write |
                                      fs::perms::group_read | fs::perms::group_write);
}

}  // namespace

std::vector<std::string> fixture_host_names() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(source_dir() + "/tests/hosts"))
    if (e.is_directory() && fs::exists(e.path() / "expected.json"))
      out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

Planted enrich_host(const std::string& name, const std::string& dest) {
  copy_tree(fixture_host(name), dest);
  Planted p;
  p.hostname = std::string(trim(read_file(dest + "/proc/sys/kernel/hostname")));
  auto inv = probe_root(dest);
  std::string node = "/dev/nvidia0";
  if (!inv.devices.empty()) {
    p.first_bus = inv.devices.front().pci.address.str();
    if (!inv.devices.front().device_nodes.empty()) node = inv.devices.front().device_nodes.front();
    write_file(dest + "/sys/bus/pci/devices/" + p.first_bus + "/config", config_with_dsn(p.dsn));
  }
  p.spec_uuid = "GPU-0d4a8c1e-5b7f-4e2a-9c3d-7e6f5a4b3c2d";
  auto kind = cdi_kind_of(inv);
  write_file(dest + "/etc/group", group_file(p.user));
  // A real loader cache (binary, and named like a library: it is copied whole all the same).
  write_file(dest + "/etc/ld.so.cache",
             read_file(source_dir() + "/tests/fuzz/corpus/ld_cache/debian12-x86_64-cut"));
  write_file(dest + "/etc/cdi/stale.yaml",
             spec(kind, "0", node, "/usr/lib/x86_64-linux-gnu/libgone.so.1"));
  make_symlink("loop.yaml", dest + "/etc/cdi/loop.yaml");
  make_symlink("/run", dest + "/var/run");
  write_file(dest + "/run/cdi/by-uuid.yaml",
             spec("example.com/gpu", p.spec_uuid, node, "/opt/gone/libgone.so.2"));
  write_file(dest + "/dev/kmsg", kernel_log(p));
  write_file(dest + "/proc/uptime", "50.00 100.00\n");
  chmod_nodes(dest + "/dev");
  return p;
}

std::vector<Identity> identities() {
  return {{"root", 0, {0}}, {"stranger", 4242, {4242}}, {"node group", 4242, {::getegid()}}};
}

std::string detect_json(const std::string& root) {
  return replace_all(inventory_to_json(probe_root(root)).dump(1), root, "<root>");
}

std::string doctor_json(const std::string& root, const Identity& who) {
  auto host = host_at(root);
  auto inv = probe(host);
  DoctorContext ctx{host, inv};
  ctx.uid = who.uid;
  ctx.gids = who.gids;
  return replace_all(findings_to_json(run_doctor(ctx, false)).dump(1), root, "<root>");
}

std::string health_json(const std::string& root) {
  auto host = host_at(root);
  auto r = health::evaluate_health(host, probe(host), {});
  if (!r) return "error: " + r.error().message;
  return replace_all(health::health_to_json(*r).dump(1), root, "<root>");
}

std::set<std::string> paths_read(const std::string& root) {
  auto host = host_at(root);
  AccessLog log;
  host.set_access_log(&log);
  auto inv = probe(host);
  for (const auto& b : make_backends(host, inv, Registry::builtin())) (void)b->sample();
  (void)health::evaluate_health(host, inv, {});
  (void)read_core_map(host);
  for (const auto& who : identities()) {
    DoctorContext ctx{host, inv};
    ctx.uid = who.uid;
    ctx.gids = who.gids;
    (void)run_doctor(ctx, false);
  }
  auto paths = log.paths();
  return {paths.begin(), paths.end()};
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string everything_in(const std::string& top) {
  std::string out;
  for (auto it = fs::recursive_directory_iterator(top); it != fs::recursive_directory_iterator();
       ++it) {
    out += it->path().string() + "\n";
    if (it->is_symlink())
      out += fs::read_symlink(it->path()).string() + "\n";
    else if (it->is_regular_file())
      out += read_file(it->path().string()) + "\n";
  }
  return out;
}

}  // namespace anygpu::test
