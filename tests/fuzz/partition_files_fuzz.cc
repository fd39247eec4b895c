// The partition files' parsers on any bytes: AMD mode files, mig-minors, nvidia-caps access
// files, /proc/devices, the SR-IOV counts, Ascend vNPU node names and Intel tile directories
// (the input's lines as the names listed). Whatever they accept obeys the kernel's rules.
#include <algorithm>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "probe/partition_parse.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = fuzz::as_text(data, size);
  if (auto mode = parse_amd_compute_mode(text)) {
    FUZZ_CHECK(mode->size() == 3 && mode->substr(1) == "PX");
    FUZZ_CHECK(!amd_partitions_in_mode(*mode) || *amd_partitions_in_mode(*mode) <= 4);
  } else {
    FUZZ_CHECK(!mode.error().message.empty());
  }
  if (auto modes = parse_amd_compute_modes(text))
    for (const auto& m : *modes) FUZZ_CHECK(parse_amd_compute_mode(m).ok());
  if (auto mem = parse_amd_memory_mode(text)) {
    int n = amd_memory_partitions(*mem);
    FUZZ_CHECK(n == 1 || n == 2 || n == 4 || n == 8);
  }
  if (auto caps = parse_mig_minors(text)) {
    for (const auto& c : *caps) {
      FUZZ_CHECK(c.gpu >= 0 && c.gpu < kMigMaxGpus && c.gi >= 0 && c.gi < kMigMaxGis);
      FUZZ_CHECK(!c.ci || (*c.ci >= 0 && *c.ci < kMigMaxCis));
      FUZZ_CHECK(c.minor == mig_cap_minor(c.gpu, c.gi, c.ci) && c.minor >= 3 && c.minor < 4323);
    }
  } else {
    FUZZ_CHECK(caps.error().message.rfind("line ", 0) == 0);
  }
  if (auto minor = parse_nv_cap_access_minor(text)) FUZZ_CHECK(*minor >= 0 && *minor <= 1 << 20);
  if (auto major = parse_proc_devices_major(text, "nvidia-caps"))
    FUZZ_CHECK(*major >= 0 && *major <= 4095);
  if (auto vfs = parse_sriov_count(text)) FUZZ_CHECK(*vfs >= 0 && *vfs <= kMaxSriovVfs);
  if (auto v = parse_vnpu_node(text))
    FUZZ_CHECK(v->id == kVnpuBase + kVnpuSlots * v->npu + v->slot && v->npu >= 0 &&
               v->npu <= kMaxNpuId && v->slot >= 0 && v->slot < kVnpuSlots);
  std::vector<std::string> names;
  for (size_t at = 0; at <= text.size();) {
    auto end = std::min(text.find('\n', at), text.size());
    names.emplace_back(text.substr(at, end - at));
    at = end + 1;
  }
  for (const char* prefix : {"gt", "tile"})
    if (auto tiles = parse_tile_names(names, prefix)) {
      FUZZ_CHECK(tiles->empty() ||
                 (tiles->size() >= 2 && tiles->size() <= static_cast<size_t>(kMaxIntelTiles)));
      for (size_t i = 0; i < tiles->size(); ++i) FUZZ_CHECK((*tiles)[i] == static_cast<int>(i));
    } else {
      FUZZ_CHECK(tiles.error().message.rfind("lists ", 0) == 0);
    }
  return 0;
}
