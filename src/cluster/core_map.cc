#include "cluster/core_map.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <vector>

#include "host/paths.h"
#include "util/cpulist.h"
#include "util/strings.h"

namespace anygpu {

Result<CoreMap> read_core_map(const HostRoot& host) {
  auto online_text = host.read_value(std::string(paths::kCpuDevices) + "/online");
  if (!online_text) return online_text.error();
  auto online = parse_cpulist(*online_text);
  if (!online) return online.error();
  struct Cpu {
    int id;
    int package, die, core;
  };
  std::vector<Cpu> cpus;
  for (int cpu : *online) {
    auto dir = cat({paths::kCpuDevices, "/cpu", std::to_string(cpu), "/topology/"});
    auto number = [&](const char* file, bool optional) -> Result<int> {
      auto v = host.read_value(dir + file);
      if (!v) return optional ? Result<int>(0) : Result<int>(v.error());
      auto n = parse_int(*v);
      if (!n || *n < -1 || *n > 1 << 20) return bad_input(cat({dir, file, ": not a number"}));
      return static_cast<int>(*n);
    };
    auto package = number("physical_package_id", false);
    auto die = number("die_id", true);  // absent before Linux 5.5
    auto core = number("core_id", false);
    for (const auto* r : {&package, &die, &core})
      if (!*r) return r->error();
    cpus.push_back({cpu, *package, *die, *core});
  }
  // A core is (package, die, core_id); its first CPU orders cores within a package, and a
  // package's first CPU orders packages, as hwloc's logical indices do.
  using Key = std::tuple<int, int, int>;
  std::map<int, int> first_of_package;
  std::map<Key, int> first_of_core;
  for (const auto& c : cpus) {
    first_of_package.try_emplace(c.package, c.id);
    first_of_core.try_emplace(Key{c.package, c.die, c.core}, c.id);
  }
  std::vector<std::pair<std::pair<int, int>, Key>> order;
  for (const auto& [key, first] : first_of_core)
    order.push_back({{first_of_package[std::get<0>(key)], first}, key});
  std::sort(order.begin(), order.end());
  std::map<Key, int> index;
  for (size_t i = 0; i < order.size(); ++i) index[order[i].second] = static_cast<int>(i);
  CoreMap map;
  for (const auto& c : cpus) map.core_of_cpu[c.id] = index[Key{c.package, c.die, c.core}];
  return map;
}

std::optional<std::string> cores_for_cpulist(const CoreMap& map, std::string_view cpulist) {
  auto cpus = parse_cpulist(cpulist);
  if (!cpus || cpus->empty()) return std::nullopt;
  std::set<int> cores;
  for (int cpu : *cpus) {
    auto it = map.core_of_cpu.find(cpu);
    if (it == map.core_of_cpu.end()) return std::nullopt;
    cores.insert(it->second);
  }
  return format_cpulist({cores.begin(), cores.end()});
}

}  // namespace anygpu
