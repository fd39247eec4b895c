// CDI spec versions and the rule runtimes apply to them (container-device-interface,
// specs-go/version.go): a spec is accepted only when its cdiVersion is a released version and
// is at least the minimum its content needs. Writing the minimum keeps a spec readable by the
// oldest runtimes (Podman 4.x vendors CDI 0.5).
#pragma once

#include <string>
#include <string_view>

namespace anygpu {

// What a spec uses that was added in a later version of the CDI spec.
struct CdiFeatures {
  bool mount_type = false;             // mounts[].type                          -> 0.4.0
  bool host_path = false;              // deviceNodes[].hostPath                 -> 0.5.0
  bool name_starts_nonletter = false;  // device name "0", "0000:18:00.0"    -> 0.5.0
  bool annotations = false;            // spec or device annotations             -> 0.6.0
  bool class_with_dot = false;         // kind "vendor.com/a.b"                  -> 0.6.0
  bool additional_gids = false;        // containerEdits.additionalGids          -> 0.7.0
  bool intel_rdt = false;              // containerEdits.intelRdt                -> 0.7.0
};

// Released versions, oldest first: 0.1.0 … 0.8.0 (0.8.0 changed only the Go API).
inline constexpr std::string_view kCdiVersions[] = {"0.1.0", "0.2.0", "0.3.0", "0.4.0",
                                                    "0.5.0", "0.6.0", "0.7.0", "0.8.0"};

bool is_known_cdi_version(std::string_view version);
// -1, 0, 1 for known versions (by position in kCdiVersions).
int compare_cdi_versions(std::string_view a, std::string_view b);
// The minimum version the features need; 0.3.0 (the earliest the reference library accepts
// as a floor) when none of them is used.
std::string minimum_cdi_version(const CdiFeatures& features);

}  // namespace anygpu
