// The container form of a launch: `podman|docker run` with the selected devices only, least
// privilege, and the in-container environment.
#pragma once

#include <string>
#include <vector>

#include "launch/plan.h"

namespace anygpu {

// Every host path a container launch of `selection` could hand over (per-device nodes, the
// vendor's shared nodes, read-only driver mounts), so host facts can say which exist.
std::vector<std::string> container_candidate_paths(const Selection& selection,
                                                   const Registry& registry = Registry::builtin());

// Groups whose numeric ids the container needs for DRM render/card nodes.
inline const std::vector<std::string> kDeviceGroups = {"video", "render"};

// `ENGINE run …` up to and including the image; `inner_argv` follows it.
Result<LaunchPlan> plan_container(const Selection& selection, const LaunchOptions& options,
                                  const HostFacts& facts, const std::vector<EnvVar>& inner_env,
                                  const std::vector<std::string>& inner_argv,
                                  const Registry& registry = Registry::builtin());

// "podman" | "docker" from --engine, else podman when on PATH, else docker.
Result<std::string> choose_engine(const LaunchOptions& options, const HostFacts& facts);

}  // namespace anygpu
