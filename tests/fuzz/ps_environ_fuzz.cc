// /proc/PID/environ and the SLURM_JOB_GPUS read from it: parsing never crashes; a value found
// is a suffix of its entry and holds no NUL; an allocation is sorted, unique and in range.
#include "fuzz_check.h"
#include "ps/allocation.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = fuzz::as_text(data, size);
  if (auto v = ps::environ_value(text, "SLURM_JOB_GPUS")) {
    FUZZ_CHECK(v->find('\0') == std::string_view::npos);
    FUZZ_CHECK(v->data() >= text.data() && v->data() + v->size() <= text.data() + text.size());
  }
  if (auto gpus = ps::slurm_job_gpus(text)) {
    FUZZ_CHECK(!gpus->empty());
    for (size_t i = 0; i < gpus->size(); ++i) {
      FUZZ_CHECK((*gpus)[i] >= 0 && (*gpus)[i] <= 8191);
      if (i) FUZZ_CHECK((*gpus)[i - 1] < (*gpus)[i]);
    }
  }
  return 0;
}
