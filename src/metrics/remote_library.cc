#include "metrics/remote_library.h"

#include <algorithm>

#include "host/paths.h"
#include "metrics/schema.h"
#include "probe/libraries_may_load.h"
#include "probe/libs/library_probe.h"
#include "util/strings.h"

namespace anygpu {

namespace {

// fill_absent: the groups of which the kernel gave a value, which the library then leaves alone
// (memory used and total from two sources would not add up).
std::vector<std::string_view> kernel_groups(const DeviceSample& kernel) {
  std::vector<std::string_view> out;
  for (const auto& m : device_metrics())
    if (!m.merge_group.empty() && m.set_in(kernel)) out.push_back(m.merge_group);
  return out;
}

}  // namespace

void merge_library_values(DeviceSample& into, DeviceSample&& from, MergeRule rule) {
  bool wins = rule == MergeRule::library_wins;
  auto held = wins ? std::vector<std::string_view>{} : kernel_groups(into);
  for (const auto& m : device_metrics()) {
    if (!m.merge_group.empty() && std::ranges::find(held, m.merge_group) != held.end()) continue;
    if (m.scalar) {
      auto& dst = into.*(m.scalar);
      if (const auto& src = from.*(m.scalar); src && (wins || !dst)) dst = src;
      continue;
    }
    auto& dst = into.*(m.labelled);
    for (auto& [k, v] : from.*(m.labelled))
      if (wins || !dst.count(k)) dst[k] = v;
  }
  for (auto& w : from.warnings) into.warnings.push_back(std::move(w));
}

RemoteLibrary::RemoteLibrary(HostRoot host, const LibrarySpec& library,
                             const std::vector<Device>& devices, bool optional)
    : host_(std::move(host)), api_(library.api), devices_(devices), optional_(optional) {
  worker::SamplerSetup setup;
  setup.api = api_;
  setup.root = host_.options().root;
  // The worker is killed a little before the collector gives up on the call (both use
  // --lib-timeout), so a hang is recorded as the worker's timeout, not an abandoned call.
  auto timeout = host_.options().library_timeout;
  setup.timeout = std::max(std::chrono::milliseconds(1),
                           timeout - std::min(std::chrono::milliseconds(100), timeout / 5));
  setup.sonames.assign(library.sonames.begin(), library.sonames.end());
  setup.dirs.assign(library.dirs.begin(), library.dirs.end());
  for (const auto& d : devices_)
    setup.targets.push_back({d.pci.address, d.status == DeviceStatus::suspended});
  request_ = {devices_.empty() ? "" : devices_.front().vendor, api_, setup.sonames, setup.dirs};
  remote_ = std::make_unique<worker::RemoteSampler>(std::move(setup));
}

RemoteLibrary::Outcome RemoteLibrary::sample() {
  if (!host_.options().load_libraries)
    return {Answer::down, {}, "vendor libraries disabled (--no-libs)"};
  if (devices_gone(host_, devices_))
    return {Answer::down,
            {},
            cat({"the devices' sysfs directories are gone (", host_.outside(paths::kPciDevices),
                 "); ", api_, " not asked"})};
  std::vector<const Device*> mine;
  for (const auto& d : devices_) mine.push_back(&d);
  if (!libraries_may_load(mine)) return {Answer::asleep, {}, {}};
  if (unusable_) return {Answer::down, {}, *unusable_};
  // Looked for on every sample (a few stats): a driver installed after the exporter started
  // is picked up at the next interval.
  if (auto missing = missing_without_loading(host_, request_))
    return {Answer::down, {}, missing->report.message.value_or(api_ + " not found")};
  auto out = remote_->sample();
  using State = worker::RemoteSampler::State;
  if (out.state == State::unavailable && optional_) unusable_ = out.message;
  if (out.state != State::sampled) return {Answer::down, {}, std::move(out.message)};
  if (!out.message.empty() && !out.samples.empty()) out.samples[0].warnings.push_back(out.message);
  return {Answer::sampled, std::move(out.samples), {}};
}

LibraryWorkerStatus RemoteLibrary::status() const {
  auto h = remote_->health();
  return {api_, h.crashes, h.status, h.signal, h.exit_code};
}

}  // namespace anygpu
