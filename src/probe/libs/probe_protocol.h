// Discovery through a worker: the request names the libraries to try (the registry's sonames
// and directories, already chosen by the parent, so the worker needs no registry), the reply
// carries one block per library, each announced by `begin` before the worker calls into it —
// so when the worker dies, the parent knows which library took it down.
//
//   request                       reply
//   anygpu-worker 1               anygpu-worker 1
//   root /                        begin nvidia nvml
//   library nvidia nvml           library nvidia nvml loaded
//   soname libnvidia-ml.so.1      path /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.90.07
//   dir /usr/lib/wsl/lib          driver 550.90.07
//   end                           runtime cuda-driver 12.4 nvml
//                                 device 0000:18:00.0
//                                 name NVIDIA%20H100%2080GB%20HBM3
//                                 memory 85520809984
//                                 done
//                                 end
//
// Optional reply lines per library: path, message, driver, runtime, output (bytes the library
// wrote to stdout/stderr, and the first of them); per device: name, uuid, arch, memory, the MIG
// lines (mig GI CI, mig-uuid, mig-profile, mig-memory) and NVLink: `nvlinks` (NVML answered for
// every link) followed by one `nvlink LINK DOMAIN BUS DEVICE PEER` per active link (PEER gpu,
// switch, ibm-npu or unknown), or `nvlinks-unknown WHY`; DCMI's HCCS: `hccs-links` followed by
// one `hccs BUS` per chip reached over HCCS, or `hccs-unknown WHY`; Level Zero's Xe Link:
// `xelinks` followed by one `xelink BUS EDGES` per device reached, or `xelinks-unknown WHY`;
// DCMI's vNPUs: `vnpu ID` then vnpu-template, vnpu-aicores and vnpu-memory for it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "probe/libs/library_probe.h"
#include "util/result.h"
#include "worker/message.h"

namespace anygpu::worker {

struct ProbeRequest {
  std::string root = "/";
  std::vector<LibraryRequest> libraries;
};

std::string encode_probe_request(const ProbeRequest& request);
Result<ProbeRequest> decode_probe_request(std::string_view text);

std::string encode_begin(std::string_view vendor, std::string_view api);
std::string encode_library(const LibraryResult& result, const StrayOutput& output);

struct ProbedLibrary {
  LibraryResult result;
  StrayOutput output;
};

struct ProbeReply {
  std::vector<ProbedLibrary> libraries;  // complete blocks, in order
  // `begin` seen for this (vendor, api) and no block yet: the call the worker was in.
  std::optional<std::pair<std::string, std::string>> in_progress;
  bool complete = false;             // `end` seen
  std::optional<std::string> error;  // malformed stream (version mismatch included)
};

ProbeReply decode_probe_reply(std::string_view text);

}  // namespace anygpu::worker
