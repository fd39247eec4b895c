// How a container runtime resolves a qualified CDI name ("kind=name") across the specs of both
// directories, as the reference library does (container-device-interface pkg/cdi/cache.go,
// Cache.refresh, at 05ae4b5bb730a036cb3f79477bd6676eea4a8c83): specs are read /etc/cdi first,
// then /var/run/cdi, each directory's files in name order. A name met again in a spec of a
// higher priority (a later directory) is taken over by it; met again at the same priority it is
// a conflict, and a conflicting name is dropped from the runtime's table altogether — from both
// specs, and from a higher-priority one defining it too. Asking for it then fails with
// "unresolvable CDI devices".
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cdi/cdi.h"

namespace anygpu {

// Two specs defining the same qualified names.
struct CdiClash {
  std::string kind;
  std::vector<std::string> names;  // device names both define, in the first spec's order
  const CdiSpec* first = nullptr;  // read first by the runtime
  const CdiSpec* second = nullptr;
  // Same priority (one directory): runtimes refuse these names. Otherwise `second` (from
  // /var/run/cdi) shadows `first`: runtimes take the names from `second`.
  bool conflict = false;
};

class CdiNameTable {
 public:
  // `specs` as scan_cdi_specs() returns them (valid specs only: a runtime skips a file it
  // cannot load); they must outlive the table.
  explicit CdiNameTable(const std::vector<CdiSpec>& specs);

  // The spec a runtime takes "kind=name" from; null when none defines it or it is refused.
  const CdiSpec* owner(std::string_view kind, std::string_view name) const;
  // Why `spec` does not give "kind=name" to whoever asks for it (empty when it does).
  std::string why_not(const CdiSpec& spec, std::string_view name) const;
  const std::vector<CdiClash>& clashes() const { return clashes_; }

 private:
  std::map<std::string, const CdiSpec*, std::less<>> owners_;  // refused names absent
  std::map<std::string, std::vector<const CdiSpec*>, std::less<>> conflicts_;
  std::vector<CdiClash> clashes_;
};

}  // namespace anygpu
