// Findings from a vendor library's health facts (NVML: ECC, row remapping, retired pages,
// clocks-event reasons; DCMI: the alarm level, fault codes, HBM ECC and isolated pages; Level Zero:
// memory health and RAS error counts). Severity and action come from data/health.yaml's `library`
// table.
#include <algorithm>
#include <cstdio>

#include "health/checks.h"
#include "util/strings.h"
#include "vendorlib/nvml/health_abi.h"

namespace anygpu::health {

namespace {

class Emitter {
 public:
  Emitter(const HealthRules& rules, std::string_view api, std::vector<Finding>& out)
      : rules_(rules), api_(api), out_(out) {}

  void operator()(std::string code, std::string message, std::string evidence,
                  std::optional<Severity> severity = std::nullopt) {
    auto it = rules_.library.find(code);
    bool listed = it != rules_.library.end();
    auto s = severity ? *severity : listed ? it->second.severity : Severity::warning;
    add(std::move(code), std::move(message), std::move(evidence), s,
        listed ? it->second.action_for(api_) : std::string());
  }

  // A finding whose severity and action come from another table (Ascend's fault codes).
  void add(std::string code, std::string message, std::string evidence, Severity severity,
           std::string action) {
    Finding f;
    f.severity = severity;
    f.action = std::move(action);
    f.code = std::move(code);
    f.message = std::move(message);
    f.evidence = std::move(evidence);
    add_finding(out_, std::move(f));
  }

  const HealthRules& rules() const { return rules_; }

 private:
  const HealthRules& rules_;
  std::string_view api_;  // whose facts: picks the action that names its tools
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
    if (r->pending) emit("memory.row-remap-pending", "a row remapping waits for a reset", evidence);
  }
  if (const auto& p = f.retired_pages) {
    const auto& calls = memory_calls(f.api);
    uint64_t total = uint64_t(p->single_bit) + p->double_bit;
    bool pending = p->pending.value_or(false);
    if (total > 0 || pending) {
      auto message = cat({n(total), " page(s) retired (", n(p->single_bit), " ", calls.single_bit,
                          ", ", n(p->double_bit), " double-bit)"});
      if (pending) message += "; a retirement waits for a reset";
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
       *f.alarm == 1 ? Severity::warning : Severity::error);
}

// DCMI's fault codes: each one a finding, with the severity and action of the fault-handling
// level Ascend's device plugin gives it (data/health.yaml `dcmi_fault_levels`).
void check_fault_codes(const DeviceLibraryFacts& f, Emitter& emit) {
  if (!f.fault_codes) return;
  for (uint32_t code : *f.fault_codes) {
    char hex[16];
    std::snprintf(hex, sizeof hex, "%08X", code);
    const auto& level = emit.rules().for_dcmi_fault(code);
    bool known = !level.source.empty();
    emit.add(
        "device.fault-code",
        cat({"fault code ", hex,
             known ? cat({" (", level.level, ")"})
                   : std::string(" (not in anygpu's fault-code table)")}),
        cat({"dcmi_get_device_errorcode_v2: ", hex,
             known ? cat({"; Ascend's device plugin lists it in ", level.source}) : std::string()}),
        level.severity, level.action);
  }
}

// Level Zero's memory health: degraded (many corrected errors) warns; running on reduced memory
// and "replace" are critical.
void check_memory_health(const DeviceLibraryFacts& f, Emitter& emit) {
  if (!f.memory_health || *f.memory_health < 2) return;
  struct Level {
    const char *code, *name, *message;
  };
  static constexpr Level kLevels[] = {
      {"memory.degraded", "degraded",
       "excessive correctable errors on one or more memory channels"},
      {"memory.reduced", "critical",
       "running on reduced memory: banks with too many uncorrectable errors are off-lined"},
      {"memory.replace", "replace", "excessive uncorrectable memory errors: replace the device"},
  };
  const auto& l = kLevels[std::min<uint32_t>(*f.memory_health, 4) - 2];
  emit(l.code, l.message,
       cat({"zesMemoryGetState: health ", n(*f.memory_health), " (", l.name, ")"}));
}

// Level Zero's RAS counts. Engine resets and errors in how a workload programmed the hardware
// are reported apart from hardware errors: neither says the device is failing.
void check_ras(const DeviceLibraryFacts& f, Emitter& emit) {
  if (!f.ras) return;
  static constexpr const char* kNames[kRasCategories] = {
      "reset", "programming", "driver", "compute", "non-compute", "cache", "display"};
  constexpr size_t kReset = 0, kProgramming = 1;
  auto evidence = [&](const char* type, const RasCounts& c) {
    auto e = cat({"zesRasGetState (", type, "):"});
    for (size_t i = 0; i < kRasCategories; ++i) e += cat({i ? ", " : " ", kNames[i], " ", n(c[i])});
    return e;
  };
  auto hardware = [&](const RasCounts& c, std::string& parts) {
    uint64_t total = 0;
    for (size_t i = kProgramming + 1; i < kRasCategories; ++i) {
      if (c[i] == 0) continue;
      total = saturating_add(total, c[i]);
      parts += cat({parts.empty() ? "" : ", ", kNames[i], " ", n(c[i])});
    }
    return total;
  };
  const auto& [corrected, uncorrected] = *f.ras;
  if (std::string parts; uint64_t total = hardware(uncorrected, parts))
    emit("ras.uncorrectable",
         cat({n(total), " uncorrectable hardware error(s) since the driver loaded (", parts, ")"}),
         evidence("uncorrectable", uncorrected));
  if (std::string parts; uint64_t total = hardware(corrected, parts))
    emit("ras.correctable",
         cat({n(total), " corrected hardware error(s) since the driver loaded (", parts, ")"}),
         evidence("correctable", corrected));
  if (uint64_t resets = saturating_add(corrected[kReset], uncorrected[kReset]))
    emit("gpu.reset", cat({"the driver reset an engine ", n(resets), " time(s) since it loaded"}),
         cat({evidence("correctable", corrected), "; ", evidence("uncorrectable", uncorrected)}));
  if (uint64_t faults = saturating_add(corrected[kProgramming], uncorrected[kProgramming]))
    emit("gpu.program-fault",
         cat({n(faults), " hardware exception(s) raised by how workloads programmed the device"}),
         cat({evidence("correctable", corrected), "; ", evidence("uncorrectable", uncorrected)}));
}

}  // namespace

void check_library(const DeviceLibraryFacts& facts, const HealthRules& rules,
                   std::vector<Finding>& out) {
  Emitter emit(rules, facts.api, out);
  check_ecc(facts, emit);
  check_memory(facts, emit);
  check_clocks(facts, emit);
  check_alarm(facts, emit);
  check_fault_codes(facts, emit);
  check_memory_health(facts, emit);
  check_ras(facts, emit);
}

}  // namespace anygpu::health
