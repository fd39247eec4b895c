// /proc/PID/cgroup: parsing never crashes; a pod uid is canonical (36 characters, dashes at
// 8/13/18/23), a container id is hex, a Slurm job id is decimal.
#include <cctype>

#include "fuzz_check.h"
#include "ps/cgroup.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto a = ps::parse_cgroup(fuzz::as_text(data, size));
  if (a.pod_uid) {
    FUZZ_CHECK(a.pod_uid->size() == 36);
    for (size_t i : {8, 13, 18, 23}) FUZZ_CHECK((*a.pod_uid)[i] == '-');
  }
  if (a.container) {
    FUZZ_CHECK(!a.container->runtime.empty());
    for (char c : a.container->id) FUZZ_CHECK(std::isxdigit(static_cast<unsigned char>(c)));
  }
  if (a.slurm)
    for (char c : a.slurm->job_id) FUZZ_CHECK(std::isdigit(static_cast<unsigned char>(c)));
  return 0;
}
