// Health through a worker (mode "health"): the request is a probe request (root and the
// libraries to try, src/worker/probe_protocol.h); the reply carries one block per device the
// library lists, each sent as soon as it is read:
//
//   anygpu-worker 1
//   library nvidia nvml loaded            (or: error MESSAGE, then end)
//   device 0000:18:00.0
//   ecc volatile 3 0                      corrected, uncorrected
//   ecc aggregate 12 1
//   remap 2 1 0 1                         corrected, uncorrected, pending, failed
//   retired 1 2 1                         multiple single-bit, double-bit, pending (or -)
//   clocks-event 64                       nvmlClocksEventReason* bits, decimal
//   alarm 2                               DCMI's alarm level (0 none … 3 critical)
//   fault-codes 80e01801 8c0e4e00         DCMI's fault codes, hex (none: the line alone)
//   memory-health 2                       Level Zero's zes_mem_health_t (1 ok … 4 replace)
//   ras correctable 0 0 0 0 0 12 0        Level Zero RAS counts by zes_ras_error_cat_t
//   ras uncorrectable 1 0 0 0 0 0 0       (both lines, or neither)
//   processes                             the list follows (absent: not answered)
//   process 4242 1073741824 37            pid, used bytes (or -), busy percent (or -)
//   error retired%20pages:%20…            a call that failed
//   device-end
//   end
//
// A worker that dies mid-stream leaves its complete device blocks usable.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/library_facts.h"
#include "util/result.h"

namespace anygpu::worker {

std::string encode_health_status(std::string_view vendor, std::string_view api,
                                 const std::optional<std::string>& error);
std::string encode_health_device(std::string_view bus_id, const health::DeviceLibraryFacts& f);

struct HealthReply {
  std::vector<std::pair<std::string, health::DeviceLibraryFacts>> devices;  // complete blocks
  std::optional<std::string> api;            // the library's API, once its line was read
  std::optional<std::string> library_error;  // the library could not be initialised
  bool complete = false;                     // `end` seen
  std::optional<std::string> error;          // malformed stream
};

HealthReply decode_health_reply(std::string_view text);

}  // namespace anygpu::worker
