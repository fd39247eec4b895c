// The metrics worker's messages (src/metrics/sample_protocol.h): its readiness line and its
// sample blocks, read by the parent from a process that hosts a vendor library (which may
// write anything to any descriptor), and the setup the worker reads. Parsing never crashes;
// an error names what is wrong and leaves no samples; a block that parses re-encodes to one
// that decodes to the same values; every value is finite and in its metric's range.
#include <cmath>
#include <string>

#include "fuzz_check.h"
#include "metrics/sample_protocol.h"
#include "metrics/schema.h"
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

// Every row of the metric table (metrics/schema.h), so a new metric is covered without an edit.
bool same(const DeviceSample& a, const DeviceSample& b) {
  for (const auto& m : device_metrics())
    if (m.scalar ? a.*(m.scalar) != b.*(m.scalar) : a.*(m.labelled) != b.*(m.labelled))
      return false;
  if (a.partitions.size() != b.partitions.size()) return false;
  for (size_t i = 0; i < a.partitions.size(); ++i) {
    const auto &p = a.partitions[i], &q = b.partitions[i];
    if (p.gpu_instance != q.gpu_instance || p.compute_instance != q.compute_instance) return false;
    for (const auto& m : device_metrics())
      if (m.partition && p.*(m.partition) != q.*(m.partition)) return false;
  }
  return a.pci_bus_id == b.pci_bus_id && a.warnings == b.warnings;
}

void check_in_range(const DeviceSample& s) {
  auto ok = [](const DeviceMetric& m, double v) {
    return std::isfinite(v) && v >= m.min && v <= m.max;
  };
  for (const auto& m : device_metrics()) {
    if (m.scalar) {
      if (const auto& v = s.*(m.scalar)) FUZZ_CHECK(ok(m, *v));
      continue;
    }
    for (const auto& [k, v] : s.*(m.labelled)) FUZZ_CHECK(ok(m, v) && !k.empty());
  }
  FUZZ_CHECK(s.partitions.size() <= 64);
  for (const auto& p : s.partitions)
    for (const auto& m : device_metrics())
      if (m.partition)
        if (const auto& v = p.*(m.partition)) FUZZ_CHECK(ok(m, *v));
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
    for (const auto& s : reply.samples) check_in_range(s);
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
