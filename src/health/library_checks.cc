// Findings from a vendor library's health facts (NVML: ECC, row remapping, retired pages,
// clocks-event reasons; DCMI: the alarm level, HBM ECC and isolated pages). Severity and action
// come from data/health.yaml's `library` table.
#include <algorithm>
#include <cstdio>

#include "health/checks.h"
#include "probe/libs/nvml_health_types.h"
#include "util/strings.h"

namespace anygpu::health {

namespace {

class Emitter {
 public:
  Emitter(const HealthRules& rules, std::vector<Finding>& out) : rules_(rules), out_(out) {}

  void operator()(std::string code, std::string message, std::string evidence,
                  std::optional<Severity> severity = std::nullopt) {
    auto it = rules_.library.find(code);
    Finding f;
    f.severity = severity                     ? *severity
                 : it != rules_.library.end() ? it->second.severity
                                              : Severity::warning;
    f.action = it != rules_.library.end() ? it->second.action : std::string();
    f.code = std::move(code);
    f.message = std::move(message);
    f.evidence = std::move(evidence);
    add_finding(out_, std::move(f));
  }

 private:
  const HealthRules& rules_;
  std::vector<Finding>& out_;
};

std::string n(uint64_t v) {
  return std::to_string(v);
}

// The calls behind the memory facts, named in the evidence: NVML's (ixml exports the same
// names) or DCMI's, whose one ECC call also gives the isolated (retired) pages.
struct MemoryCalls {
  std::string_view ecc, retired, pending, single_bit;
};

const MemoryCalls& memory_calls(std::string_view api) {
  static constexpr MemoryCalls kNvml{"nvmlDeviceGetTotalEccErrors", "nvmlDeviceGetRetiredPages",
                                     "nvmlDeviceGetRetiredPagesPendingStatus",
                                     "multiple single-bit"};
  static constexpr MemoryCalls kDcmi{"dcmi_get_device_ecc_info (HBM)",
                                     "dcmi_get_device_ecc_info (HBM) isolated pages",
                                     "next isolated pages", "single-bit"};
  return api == "dcmi" ? kDcmi : kNvml;
}

void check_ecc(const DeviceLibraryFacts& f, Emitter& emit) {
  auto evidence = [&] {
    auto e = cat({memory_calls(f.api).ecc, ":"});
    if (f.ecc_volatile)
      e += cat({" volatile corrected ", n(f.ecc_volatile->corrected), ", uncorrected ",
                n(f.ecc_volatile->uncorrected), ";"});
    if (f.ecc_aggregate)
      e += cat({" aggregate corrected ", n(f.ecc_aggregate->corrected), ", uncorrected ",
                n(f.ecc_aggregate->uncorrected)});
    if (e.back() == ';') e.pop_back();
    return e;
  };
  uint64_t vol_u = f.ecc_volatile ? f.ecc_volatile->uncorrected : 0;
  uint64_t agg_u = f.ecc_aggregate ? f.ecc_aggregate->uncorrected : 0;
  if (vol_u > 0) {
    emit("ecc.uncorrectable",
         cat({n(vol_u), " uncorrectable ECC error(s) since the driver loaded"}), evidence());
  } else if (agg_u > 0) {
    // Over the device's lifetime but none since the driver loaded: history, not a fault now.
    emit("ecc.uncorrectable",
         cat({n(agg_u),
              " uncorrectable ECC error(s) in the device's lifetime, none since the "
              "driver loaded"}),
         evidence(), Severity::info);
  }
  if (f.ecc_volatile && f.ecc_volatile->corrected > 0)
    emit("ecc.correctable",
         cat({n(f.ecc_volatile->corrected), " corrected ECC error(s) since the driver loaded"}),
         evidence());
}

void check_memory(const DeviceLibraryFacts& f, Emitter& emit) {
  if (const auto& r = f.remapped_rows) {
    auto evidence = cat({"nvmlDeviceGetRemappedRows: corrected ", n(r->corrected), ", uncorrected ",
                         n(r->uncorrected), ", pending ", r->pending ? "1" : "0", ", failure ",
                         r->failed ? "1" : "0"});
    if (r->failed) emit("memory.row-remap-failed", "a row remapping failed", evidence);
    if (r->pending)
      emit("memory.row-remap-pending", "a row remapping waits for a GPU reset", evidence);
  }
  if (const auto& p = f.retired_pages) {
    const auto& calls = memory_calls(f.api);
    uint64_t total = uint64_t(p->single_bit) + p->double_bit;
    bool pending = p->pending.value_or(false);
    if (total > 0 || pending) {
      auto message = cat({n(total), " page(s) retired (", n(p->single_bit), " ", calls.single_bit,
                          ", ", n(p->double_bit), " double-bit)"});
      if (pending) message += "; a retirement waits for a GPU reset";
      emit("memory.retired-pages", message,
           cat({calls.retired, ": ", calls.single_bit, " ", n(p->single_bit), ", double-bit ",
                n(p->double_bit),
                p->pending ? cat({"; ", calls.pending, ": ", pending ? "1" : "0"})
                           : std::string()}));
    }
  }
}

void check_clocks(const DeviceLibraryFacts& f, Emitter& emit) {
  if (!f.clocks_event_reasons) return;
  uint64_t bits = *f.clocks_event_reasons;
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(bits));
  auto evidence = cat({"nvmlDeviceGetCurrentClocksEventReasons: ", hex});
  bool thermal = bits & (nvml::kEventHwThermalSlowdown | nvml::kEventSwThermalSlowdown);
  bool brake = bits & nvml::kEventHwPowerBrakeSlowdown;
  if (thermal)
    emit("throttle.thermal",
         bits & nvml::kEventHwThermalSlowdown ? "hardware thermal slowdown: clocks lowered"
                                              : "software thermal slowdown: clocks lowered",
         evidence);
  if (brake) emit("throttle.power", "hardware power brake slowdown: clocks lowered", evidence);
  // HW slowdown is also set by the two above; alone it has another cause.
  if ((bits & nvml::kEventHwSlowdown) && !thermal && !brake)
    emit("throttle.hw-slowdown", "hardware slowdown: clocks lowered", evidence);
}

// DCMI's alarm level: minor is a warning, major and critical are critical.
void check_alarm(const DeviceLibraryFacts& f, Emitter& emit) {
  if (!f.alarm || *f.alarm == 0) return;
  static constexpr const char* kLevels[] = {"none", "minor", "major", "critical"};
  auto level = kLevels[std::min<uint32_t>(*f.alarm, 3)];
  emit("device.alarm", cat({"the device raises a ", level, " alarm"}),
       cat({"dcmi_get_device_health: ", n(*f.alarm), " (", level, ")"}),
       *f.alarm == 1 ? Severity::warning : Severity::critical);
}

}  // namespace

void check_library(const DeviceLibraryFacts& facts, const HealthRules& rules,
                   std::vector<Finding>& out) {
  Emitter emit(rules, out);
  check_ecc(facts, emit);
  check_memory(facts, emit);
  check_clocks(facts, emit);
  check_alarm(facts, emit);
}

}  // namespace anygpu::health
