// Metrics through a long-lived worker (mode "sample"): the parent sends the sampler's setup
// once; the worker loads and initialises the library and answers `ready` (or `failed` with
// why, then exits). After that every `sample` line from the parent gets one block holding one
// sample of every device, in the setup's order.
//
//   request                         reply
//   anygpu-worker 1                 anygpu-worker 1
//   sampler nvml                    ready
//   root /                          sample
//   timeout 1000                    device 0000:18:00.0
//   soname libnvidia-ml.so.1        utilization 0.37
//   dir /usr/lib/wsl/lib            memory-used 565182464
//   device 0000:18:00.0 awake       memory-total 85520809984
//   end                             temperature 41
//   sample                          sensor gpu 41
//                                   clock graphics 1980000000
//                                   partition 7 0
//                                   partition 7 0 memory-used 1048576
//                                   partition 7 0 memory-total 10200547328
//                                   warning power:%20Unknown%20Error%20(999)
//                                   output 37 mock-nvml%20says%20hi   (printed meanwhile)
//                                   end
//
// Value lines are the metric table's `wire` names (metrics/schema.h): `TAG N` for a scalar
// (utilization, memory-used, …, at most once per device), `TAG LABEL N` for a labelled metric
// (sensor, clock; each label once); N is a finite number within the row's range. Then
// `partition GI CI` declares a MIG instance of the device by its GPU and compute instance ids,
// and `partition GI CI TAG N` gives it a value of a row that has per-partition values (each
// once). Then `warning TEXT`. A suspended device is listed with no values. A malformed
// partition line is dropped with a warning on its device; anything else malformed is a
// protocol error.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "metrics/sample.h"
#include "probe/libs/probe_protocol.h"
#include "util/result.h"
#include "vendorlib/library_sampler.h"

namespace anygpu::worker {

struct SamplerSetup {
  std::string api;  // nvml, ixml, level-zero, dcmi
  std::string root = "/";
  std::chrono::milliseconds timeout{1000};
  std::vector<std::string> sonames, dirs;
  std::vector<SampleTarget> targets;
};

std::string encode_sampler_setup(const SamplerSetup& setup);
Result<SamplerSetup> decode_sampler_setup(std::string_view text);

inline constexpr std::string_view kSampleLine = "sample\n";

std::string encode_ready();
std::string encode_failed(std::string_view message);

// The header and the line after it: `ready`, or the library's failure.
struct Readiness {
  bool ready = false;
  std::optional<std::string> failed;  // the worker said `failed`
  std::optional<std::string> error;   // malformed
};
Readiness decode_readiness(std::string_view text);
// True once `buffer` holds the header and one more complete line.
bool readiness_complete(std::string_view buffer);

std::string encode_samples(const std::vector<SampleTarget>& targets,
                           const std::vector<DeviceSample>& samples, const StrayOutput& output);

struct SampleReply {
  std::vector<DeviceSample> samples;  // pci_bus_id, values and warnings only
  StrayOutput output;
  std::optional<std::string> error;  // malformed: samples is then empty
};
// One `sample` … `end` block, which must list exactly `targets`, in order.
SampleReply decode_samples(std::string_view block, const std::vector<SampleTarget>& targets);

}  // namespace anygpu::worker
