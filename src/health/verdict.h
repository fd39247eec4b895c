// What a scheduler should do about this node, from `anygpu health`'s report: the findings that
// take it out of service (`health --slurm` drains it, `k8s taint` taints it) and the devices
// nothing could be said about. Both consequences read this one decision.
#pragma once

#include <string>
#include <vector>

#include "health/report.h"

namespace anygpu::health {

// One finding that takes the node out of service.
struct Culprit {
  std::string code;        // the finding's code: "xid", "pcie.aer.fatal"
  std::string pci_bus_id;  // the device it was found on
  Severity severity = Severity::error;
};

struct NodeVerdict {
  std::vector<Culprit> culprits;   // worst first, then in the report's device order
  std::vector<std::string> blind;  // bus ids of devices whose health is `unknown`

  bool out_of_service() const { return !culprits.empty(); }
};

// The findings at `at` or worse on the report's devices. `at` below warning is read as warning:
// an informational finding (a corrected error, a code the vendor says needs no action) never
// takes a node out of service. Host findings name no device and count as `health`'s exit code
// counts them: not at all. A device that is `unknown` is blind, not a culprit.
NodeVerdict node_verdict(const HealthReport& report, Severity at = Severity::error);

}  // namespace anygpu::health
