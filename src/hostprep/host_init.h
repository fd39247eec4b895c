// `anygpu host-init`: what a new host of its vendor needs — the vendor marker, the container
// toolkit, a CDI spec, the open-files limit — planned from the inventory, applied idempotently.
#pragma once

#include <string>
#include <vector>

#include "host/host_root.h"
#include "model/inventory.h"
#include "util/diagnostics.h"
#include "util/result.h"

namespace anygpu {

enum class StepState {
  done,        // already as it should be
  todo,        // --apply will do it
  applied,     // --apply just did it
  manual,      // needs the operator (a package install): the hint says how
  blocked,     // cannot be done yet: the message says why
  not_needed,  // this vendor does not need it
};
std::string_view to_string(StepState s);

struct HostStep {
  std::string id;    // marker, legacy-marker, container-toolkit, cdi, ulimit
  std::string what;  // one line
  std::string why;
  std::string path;  // host path written or checked; empty when none
  StepState state = StepState::todo;
  std::string content;  // what --apply writes to `path`
  std::string hint;     // for manual and blocked steps
};

struct HostPlan {
  std::string vendor;  // registry id, or "none"
  size_t devices = 0;
  std::vector<HostStep> steps;
  Diagnostics diagnostics;  // what the CDI spec leaves out, and why
};

HostPlan plan_host_init(const HostRoot& host, const Inventory& inventory);

// Writes every `todo` step beneath the host's root (temp file + rename); steps already done are
// not touched. The first failure is returned, naming the path; steps written before stay done.
Result<bool> apply_host_init(const HostRoot& host, HostPlan& plan);

// The marker's JSON document (schema anygpu.host/v1); stable for a given inventory, so a
// second run compares equal.
std::string host_marker_json(const Inventory& inventory, const std::string& vendor);

}  // namespace anygpu
