// The metrics worker's messages (src/metrics/sample_protocol.h): its readiness line and its
// sample blocks, read by the parent from a process that hosts a vendor library (which may
// write anything to any descriptor), and the setup the worker reads. Parsing never crashes;
// an error names what is wrong and leaves no samples; a block that parses re-encodes to one
// that decodes to the same values; every value is finite and in range.
#include <cmath>
#include <string>

#include "fuzz_check.h"
#include "metrics/sample_protocol.h"
#include "worker/message.h"

using namespace anygpu;
using namespace anygpu::worker;

namespace {

// The h100-8x layout the corpus uses: two targets, the second suspended.
const std::vector<SampleTarget>& targets() {
  static const std::vector<SampleTarget> t = {
      {*PciAddress::parse("0000:18:00.0"), false},
      {*PciAddress::parse("0000:2a:00.0"), true},
  };
  return t;
}

bool same(const DeviceSample& a, const DeviceSample& b) {
  return a.pci_bus_id == b.pci_bus_id && a.utilization_ratio == b.utilization_ratio &&
         a.memory_used_bytes == b.memory_used_bytes &&
         a.memory_total_bytes == b.memory_total_bytes &&
         a.temperature_celsius == b.temperature_celsius && a.power_watts == b.power_watts &&
         a.power_limit_watts == b.power_limit_watts && a.energy_joules == b.energy_joules &&
         a.temperatures_celsius == b.temperatures_celsius && a.clocks_hertz == b.clocks_hertz &&
         a.warnings == b.warnings;
}

void check_finite(const DeviceSample& s) {
  for (auto v : {s.utilization_ratio, s.memory_used_bytes, s.memory_total_bytes,
                 s.temperature_celsius, s.power_watts, s.power_limit_watts, s.energy_joules})
    if (v) FUZZ_CHECK(std::isfinite(*v));
  if (s.utilization_ratio) FUZZ_CHECK(*s.utilization_ratio >= 0 && *s.utilization_ratio <= 1);
  for (const auto& [k, v] : s.clocks_hertz) FUZZ_CHECK(std::isfinite(v) && v >= 0 && !k.empty());
  for (const auto& [k, v] : s.temperatures_celsius) FUZZ_CHECK(std::isfinite(v) && !k.empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = fuzz::as_text(data, size);

  auto ready = decode_readiness(text);
  FUZZ_CHECK(int(ready.ready) + int(ready.failed.has_value()) + int(ready.error.has_value()) == 1);
  if (ready.failed) {
    auto again = decode_readiness(encode_failed(*ready.failed));
    FUZZ_CHECK(again.failed == ready.failed);
  }

  auto reply = decode_samples(text, targets());
  if (reply.error) {
    FUZZ_CHECK(!reply.error->empty() && reply.samples.empty());
  } else {
    FUZZ_CHECK(reply.samples.size() == targets().size());
    for (const auto& s : reply.samples) check_finite(s);
    auto back = decode_samples(encode_samples(targets(), reply.samples, reply.output), targets());
    FUZZ_CHECK(!back.error && back.samples.size() == reply.samples.size());
    for (size_t i = 0; i < reply.samples.size(); ++i)
      FUZZ_CHECK(same(reply.samples[i], back.samples[i]));
    FUZZ_CHECK(back.output.bytes == reply.output.bytes);
  }

  if (auto setup = decode_sampler_setup(text)) {
    FUZZ_CHECK(!setup->api.empty() && !setup->sonames.empty());
    auto again = decode_sampler_setup(encode_sampler_setup(*setup));
    FUZZ_CHECK(again && again->api == setup->api && again->sonames == setup->sonames &&
               again->targets.size() == setup->targets.size() && again->timeout == setup->timeout);
  }
  return 0;
}
