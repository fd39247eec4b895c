// Host files the doctor reads (beneath the host root). Not kernel interfaces: those live in
// src/host/paths.h.
#pragma once

#include <string_view>

#include "host/ld_cache.h"

namespace anygpu::doctor_paths {
inline constexpr std::string_view kLdSoCache = kLdSoCachePath;
inline constexpr std::string_view kEtcGroup = "/etc/group";
// Container engines that read CDI specs.
inline constexpr std::string_view kContainerEngines[] = {
    "/usr/bin/podman",       "/usr/bin/docker",       "/usr/bin/containerd",      "/usr/bin/crio",
    "/usr/local/bin/podman", "/usr/local/bin/docker", "/usr/local/bin/containerd"};
}  // namespace anygpu::doctor_paths
