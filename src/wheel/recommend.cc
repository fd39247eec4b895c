#include "wheel/recommend.h"

#include <vector>

#include "registry/registry.h"
#include "select/select.h"
#include "util/strings.h"
#include "util/version.h"

namespace anygpu {

namespace {

// PyTorch's own index serves this vendor (cuda, rocm, xpu): its releases can be walked back to
// one the host runs. Plugin and vendor builds follow their own pairings instead.
bool on_pytorch_index(const Inventory& inventory, const WheelRequest& request) {
  auto vendor = request.vendor ? *request.vendor : primary_vendor(inventory);
  const Vendor* v = Registry::builtin().vendor(vendor);
  return v && v->torch_build().pytorch_index && !inventory.of_vendor(vendor).empty();
}

// The pins to try, newest release first: each release's newest patch inside the request's range.
std::vector<std::string> candidates(const WheelPackage& pkg, const WheelRequest& request) {
  std::vector<std::string> out;
  for (auto r = pkg.releases.rbegin(); r != pkg.releases.rend(); ++r) {
    if (!request.range)
      out.push_back(r->latest);
    else if (auto pin = pin_in_range(*r, *request.range))
      out.push_back(*pin);
  }
  return out;
}

Result<WheelChoice> choose_release(const WheelData& data, const Inventory& inventory,
                                   WheelRequest request, const std::string& version) {
  request.version = version;
  return choose_wheel(data, inventory, request);
}

// What the newest release would install once the driver allowed it, when that is not `now`.
std::optional<WheelChoice> upgrade_choice(const WheelData& data, const Inventory& inventory,
                                          WheelRequest request, const WheelChoice& now) {
  request.assume_driver_upgrade = true;
  auto later = choose_wheel(data, inventory, request);
  if (!later || !later->accelerated || later->needs.empty()) return std::nullopt;
  // Better means acceleration at all, or a newer release: the same release on a newer CUDA
  // is not worth a driver upgrade to name.
  bool newer = compare_versions(later->version, now.version).value_or(0) > 0;
  if (now.accelerated && !newer) return std::nullopt;
  return std::move(*later);
}

// `now` is the newest release's CPU fallback: the newest release inside the range whose build
// drives the devices replaces it, saying why it is not the newest.
void walk_back(const WheelData& data, const Inventory& inventory, const WheelRequest& request,
               const WheelPackage& pkg, WheelChoice& now) {
  const std::string newest = now.version;
  for (const auto& pin : candidates(pkg, request)) {
    auto c = choose_release(data, inventory, request, pin);
    if (!c || !c->accelerated) continue;
    c->reason += cat({"; ", pkg.name, " ", newest, ", the newest release",
                      request.range ? cat({" in ", request.range->str()}) : std::string(),
                      ", has no build that runs here now"});
    now = std::move(*c);
    return;
  }
}

}  // namespace

Result<Recommendation> recommend_build(const WheelData& data, const Inventory& inventory,
                                       const WheelRequest& request, std::string_view keep_release) {
  auto first = choose_wheel(data, inventory, request);
  if (!first) return first.error();
  Recommendation out{std::move(*first), std::nullopt, std::nullopt};
  if (!on_pytorch_index(inventory, request)) return out;
  if (request.version) {
    out.after_upgrade = upgrade_choice(data, inventory, request, out.now);
    if (!out.now.accelerated) out.pin_cannot_run = out.now.reason;
    return out;
  }
  const auto* pkg = data.package(out.now.package);
  if (!pkg) return out;
  auto keep = std::string(keep_release.substr(0, keep_release.find('+')));
  std::optional<WheelChoice> kept;
  if (!keep.empty() && pkg->release(keep) && (!request.range || request.range->contains(keep)))
    if (auto c = choose_release(data, inventory, request, keep)) kept = std::move(*c);
  if (kept && kept->accelerated) {
    out.now = std::move(*kept);
  } else if (!out.now.accelerated) {
    walk_back(data, inventory, request, *pkg, out.now);
    // Nothing in reach drives the devices: the CPU build of the installed release changes least.
    if (!out.now.accelerated && kept) out.now = std::move(*kept);
  }
  out.after_upgrade = upgrade_choice(data, inventory, request, out.now);
  return out;
}

std::optional<WheelChoice> recommend_replacement(const WheelData& data, const Inventory& inventory,
                                                 std::string_view installed,
                                                 const std::string& vendor,
                                                 const std::optional<pep440::SpecifierSet>& range) {
  WheelRequest request;
  request.vendor = vendor;
  request.range = range;
  auto rec = recommend_build(data, inventory, request, installed);
  if (!rec || rec->now.pip.empty()) return std::nullopt;
  return std::move(rec->now);
}

}  // namespace anygpu
