// The container form of a launch: `podman|docker run` with the selected devices only, least
// privilege, and the in-container environment.
#pragma once

#include <string>
#include <vector>

#include "launch/plan.h"

namespace anygpu {

// `ENGINE run …` up to and including the image; `inner_argv` follows it.
Result<LaunchPlan> plan_container(const Selection& selection, const LaunchOptions& options,
                                  const HostFacts& facts, const std::vector<EnvVar>& inner_env,
                                  const std::vector<std::string>& inner_argv,
                                  const Registry& registry = Registry::builtin());

// Without a CDI spec no update-ldcache hook runs: the driver's library folders that are not
// the loader's default directories, ':'-joined, for LD_LIBRARY_PATH ("" when none).
std::string loader_path_without_hook(const std::vector<std::string>& folders);

// Whether the selection holds MIG instances (named by UUID inside a container as outside).
bool names_mig_instances(const Selection& selection);

// "podman" | "docker" from --engine, else podman when on PATH, else docker.
Result<std::string> choose_engine(const LaunchOptions& options, const HostFacts& facts);

}  // namespace anygpu
