// Host files the doctor reads (beneath the host root). Not kernel interfaces: those live in
// src/host/paths.h.
#pragma once

#include <string_view>

#include "host/ld_cache.h"

namespace anygpu::doctor_paths {
inline constexpr std::string_view kLdSoCache = kLdSoCachePath;
inline constexpr std::string_view kEtcGroup = "/etc/group";
// NVIDIA Container Toolkit: its config directory and binaries.
inline constexpr std::string_view kNvidiaContainerToolkit[] = {
    "/etc/nvidia-container-runtime", "/usr/bin/nvidia-ctk", "/usr/bin/nvidia-container-toolkit",
    "/usr/bin/nvidia-container-runtime", "/usr/local/bin/nvidia-ctk"};
// Container engines that read CDI specs.
inline constexpr std::string_view kContainerEngines[] = {
    "/usr/bin/podman",       "/usr/bin/docker",       "/usr/bin/containerd",      "/usr/bin/crio",
    "/usr/local/bin/podman", "/usr/local/bin/docker", "/usr/local/bin/containerd"};
}  // namespace anygpu::doctor_paths
