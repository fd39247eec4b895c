#include <algorithm>

#include "health/aer.h"
#include "health/checks.h"
#include "health/coverage.h"
#include "health/ras.h"
#include "host/paths.h"
#include "probe/sysfs_parse.h"
#include "probe/sysfs_value.h"
#include "util/strings.h"

namespace anygpu::health {

namespace {

std::string device_dir(const Device& dev) {
  return cat({paths::kPciDevices, "/", dev.pci.address.str()});
}

void warn_unparsed(const CheckContext& ctx, const std::string& path, const Error& e,
                   SourceTally& tally) {
  ctx.warnings.push_back(cat({path, ": ", e.message, "; ignored"}));
  tally.failed("malformed", cat({path, ": ", e.message}));
}

struct AerFile {
  std::string_view file, code;
  Severity severity;
  std::string_view what, action;
};
constexpr AerFile kAerFiles[] = {
    {"aer_dev_fatal", "pcie.aer.fatal", Severity::error, "fatal PCIe errors",
     "drain the node; reseat or replace the device or its riser; check the slot's power"},
    {"aer_dev_nonfatal", "pcie.aer.nonfatal", Severity::warning, "non-fatal PCIe errors",
     "watch the counter; a rising count points at the link (riser, cable, slot)"},
    {"aer_dev_correctable", "pcie.aer.correctable", Severity::info, "corrected PCIe errors",
     "none unless the count rises quickly (signal integrity)"},
};

void check_aer(const CheckContext& ctx, const std::string& dir, DeviceHealth& h) {
  auto& out = h.findings;
  SourceTally tally("aer");
  for (const auto& f : kAerFiles) {
    auto path = cat({dir, "/", f.file});
    auto text = ctx.host.read_file(path, kSmallFileBytes);
    if (!text) {
      tally.failed(text.error());  // absent: no AER capability, or no statistics in the kernel
      continue;
    }
    auto counters = parse_aer_counters(*text);
    if (!counters) {
      warn_unparsed(ctx, path, counters.error(), tally);
      continue;
    }
    tally.read();
    auto n = counters->count();
    if (n == 0) continue;
    auto detail = counters->nonzero();
    add_finding(
        out, {std::string(f.code), f.severity, cat({std::to_string(n), " ", f.what, " since boot"}),
              cat({path, ": TOTAL ", std::to_string(n), detail.empty() ? "" : " (", detail,
                   detail.empty() ? "" : ")"}),
              std::string(f.action)});
  }
  tally.add_to(h.sources);
}

// Whether the link's state was read (the four link files, some of which a device may lack).
bool check_link(const CheckContext& ctx, const std::string& dir, std::vector<Finding>& out,
                SourceTally& tally) {
  auto read = [&](std::string_view name) {
    auto v = ctx.host.read_value(cat({dir, "/", name}));
    if (!v) tally.failed(v.error());
    return v;
  };
  auto cur_w = read("current_link_width"), max_w = read("max_link_width");
  bool seen = cur_w && max_w;
  if (cur_w && max_w) {
    auto cur = parse_link_width(*cur_w), max = parse_link_width(*max_w);
    if (cur && max && *cur && *max && **cur < **max) {
      add_finding(
          out,
          {"pcie.link.degraded", Severity::warning,
           cat({"PCIe link trained at x", std::to_string(**cur), " of x", std::to_string(**max)}),
           cat({dir, "/current_link_width: ", *cur_w, ", max_link_width: ", *max_w}),
           "reseat the device or its riser; a narrower link cuts host-device "
           "bandwidth"});
    }
  }
  auto cur_s = read("current_link_speed"), max_s = read("max_link_speed");
  seen = seen || (cur_s && max_s);
  if (cur_s && max_s) {
    auto cur = parse_link_speed(*cur_s), max = parse_link_speed(*max_s);
    if (cur && max && *cur && *max && **cur < **max) {
      // Idle GPUs drop their link speed to save power: information, not a fault.
      add_finding(
          out,
          {"pcie.link.speed-reduced", Severity::info,
           cat({"PCIe link at ", *cur_s, " of ", *max_s, " (normal while idle: power saving)"}),
           cat({dir, "/current_link_speed: ", *cur_s, ", max_link_speed: ", *max_s}),
           "none while idle; under load, check the slot and BIOS link settings"});
    }
  }
  return seen;
}

// A device that dropped off the bus answers every config read with all ones. Whether the
// config space was read.
bool check_config_space(const CheckContext& ctx, const std::string& dir, std::vector<Finding>& out,
                        SourceTally& tally) {
  auto path = cat({dir, "/config"});
  auto config = ctx.host.read_file(path, 4096);
  if (!config) tally.failed(config.error());
  if (!config || config->size() < 4) return false;
  if (!std::all_of(config->begin(), config->begin() + 4,
                   [](char c) { return static_cast<unsigned char>(c) == 0xff; }))
    return true;
  add_finding(out, {"pcie.fallen-off-bus", Severity::error,
                    "the device answers config reads with all ones: it has fallen off the bus",
                    cat({path, ": vendor/device id 0xffff/0xffff"}),
                    "drain the node and reboot it; if it repeats, check seating, power and "
                    "thermals, then RMA"});
  return true;
}

}  // namespace

void check_pcie(const CheckContext& ctx, const Device& dev, DeviceHealth& h) {
  auto dir = device_dir(dev);
  // The PCI function's own state: its config space, else its link attributes.
  SourceTally pcie(kPcieSource);
  bool config = check_config_space(ctx, dir, h.findings, pcie);
  bool link = check_link(ctx, dir, h.findings, pcie);
  if (config || link) pcie.read();
  pcie.add_to(h.sources, true);
  check_aer(ctx, dir, h);
}

void check_ras(const CheckContext& ctx, const Device& dev, DeviceHealth& h) {
  auto& out = h.findings;
  auto dir = cat({device_dir(dev), "/ras"});
  SourceTally tally("ras");
  auto names = ctx.host.list_dir(dir);
  if (!names) {
    tally.failed(names.error());  // absent: a GPU without RAS (amdgpu creates ras/ with it)
    tally.add_to(h.sources);
    return;
  }
  for (const auto& name : *names) {
    auto path = cat({dir, "/", name});
    if (name.ends_with("_err_count")) {
      auto text = ctx.host.read_file(path, kSmallFileBytes);
      if (!text) {
        tally.failed(text.error());
        continue;
      }
      auto count = parse_ras_count(*text);
      if (!count) {
        warn_unparsed(ctx, path, count.error(), tally);
        continue;
      }
      tally.read();
      auto block = name.substr(0, name.size() - std::string_view("_err_count").size());
      if (count->uncorrectable)
        add_finding(out, {"ras.uncorrectable", Severity::error,
                          cat({std::to_string(count->uncorrectable),
                               " uncorrectable errors in the ", block, " block"}),
                          cat({path, ": ue: ", std::to_string(count->uncorrectable)}),
                          "drain the GPU and reset it; repeated uncorrectable errors are an "
                          "RMA condition"});
      if (count->correctable)
        add_finding(out, {"ras.correctable", Severity::warning,
                          cat({std::to_string(count->correctable), " corrected errors in the ",
                               block, " block"}),
                          cat({path, ": ce: ", std::to_string(count->correctable)}),
                          "watch the rate; memory errors that keep rising lead to retired "
                          "pages"});
    } else if (name == "gpu_vram_bad_pages") {
      auto text = ctx.host.read_file(path, size_t{4} << 20);
      if (!text) {
        tally.failed(text.error());
        continue;
      }
      auto pages = parse_bad_pages(*text);
      if (!pages) {
        warn_unparsed(ctx, path, pages.error(), tally);
        continue;
      }
      tally.read();
      if (pages->retired || pages->pending)
        add_finding(out, {"memory.retired-pages", Severity::warning,
                          cat({std::to_string(pages->retired), " retired and ",
                               std::to_string(pages->pending), " pending bad VRAM pages"}),
                          cat({path, ": ", std::to_string(pages->retired), " R, ",
                               std::to_string(pages->pending), " P"}),
                          "reset the GPU at the next window so pending pages retire; a count "
                          "near the driver's bad_page_threshold means RMA"});
      if (pages->failed)
        add_finding(out, {"memory.retire-failed", Severity::error,
                          cat({std::to_string(pages->failed),
                               " bad VRAM pages could not be "
                               "retired"}),
                          cat({path, ": ", std::to_string(pages->failed), " F"}),
                          "drain the GPU; pages that cannot be retired are an RMA condition"});
    }
  }
  if (!tally.has_failure()) tally.read();  // ras/ was listed; counters it lacks are no failure
  tally.add_to(h.sources);
}

void check_thermal(const CheckContext& ctx, const Device& dev, DeviceHealth& h) {
  auto& out = h.findings;
  auto hwmon = cat({device_dir(dev), "/", paths::metrics::kHwmonDir});
  SourceTally tally("hwmon");
  auto dirs = ctx.host.list_dir(hwmon);
  if (!dirs) {
    tally.failed(dirs.error());  // absent: the driver registers no hwmon for the device
    tally.add_to(h.sources);
    return;
  }
  bool any_input = false, any_read = false;  // temperature inputs found, and read
  auto milli = [&](const std::string& path) -> std::optional<int64_t> {
    auto v = ctx.host.read_value(path);
    if (!v) {
      tally.failed(v.error());
      return std::nullopt;
    }
    auto n = metrics::parse_sysfs_integer(*v, metrics::kMinMilliCelsius, metrics::kMaxMilliCelsius);
    return n ? std::optional<int64_t>(*n) : std::nullopt;
  };
  for (const auto& d : *dirs) {
    auto base = cat({hwmon, "/", d, "/"});
    auto files = ctx.host.list_dir(base);
    if (!files) continue;
    for (const auto& f : *files) {
      if (!f.starts_with("temp") || !f.ends_with("_input")) continue;
      auto chan = f.substr(0, f.size() - 6);  // "temp2"
      any_input = true;
      auto input = milli(base + f);
      if (!input) continue;
      any_read = true;
      auto label = ctx.host.read_value(base + chan + "_label");
      std::string name = label ? *label : chan;
      for (auto [suffix, sev] :
           {std::pair{"_emergency", Severity::error}, std::pair{"_crit", Severity::warning}}) {
        auto limit = milli(base + chan + suffix);
        if (!limit || *input < *limit) continue;
        add_finding(out, {"throttle.thermal", sev,
                          cat({name, " at ", std::to_string(*input / 1000), " °C, at or above its ",
                               suffix + 1, " threshold of ", std::to_string(*limit / 1000),
                               " °C: the device slows down"}),
                          cat({base, f, ": ", std::to_string(*input), ", ", chan, suffix, ": ",
                               std::to_string(*limit)}),
                          "check the cooling (fans, airflow, inlet temperature) and the load"});
        break;
      }
    }
  }
  if (any_read || !any_input) tally.read();
  tally.add_to(h.sources, true);
}

void add_finding(std::vector<Finding>& out, Finding f) {
  for (auto& existing : out)
    if (existing.code == f.code && existing.message == f.message) return;
  out.push_back(std::move(f));
}

}  // namespace anygpu::health
