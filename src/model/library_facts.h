// Health facts a vendor management library gives (NVML and libraries that speak it, DCMI,
// Level Zero Sysman), read in a library worker and turned into findings by check_library
// (docs/health.md lists the codes). Every field is absent when the library did not answer it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace anygpu::health {

struct EccCounts {
  uint64_t corrected = 0, uncorrected = 0;
};

struct RemappedRows {
  uint32_t corrected = 0, uncorrected = 0;
  bool pending = false, failed = false;
};

struct RetiredPages {
  uint32_t single_bit = 0, double_bit = 0;  // by cause: multiple single-bit, double-bit
  std::optional<bool> pending;              // retirements that wait for a reset
};

// Error counts by category, in Level Zero's zes_ras_error_cat_t order (reset, programming,
// driver, compute, non-compute, cache, display), summed over the device's error sets of one type.
inline constexpr size_t kRasCategories = 7;
using RasCounts = std::array<uint64_t, kRasCategories>;
struct RasErrors {
  RasCounts correctable{}, uncorrectable{};
};

// At most this many fault codes per device: ERROR_CODE_MAX_NUM in DCMI's examples.
inline constexpr unsigned kMaxFaultCodes = 128;

// Sums of a library's counters stop at the maximum: a wrapped sum of huge (garbage or
// long-lived) counts would read as few errors, or none.
inline uint64_t saturating_add(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

struct LibraryProcess {
  int pid = 0;
  std::optional<uint64_t> used_bytes;
  // Percent of the library's most recent sampling period the device's compute engines (NVML:
  // SMs) worked for this process; absent when the library does not say.
  std::optional<uint32_t> busy_percent;
};

struct DeviceLibraryFacts {
  std::string api;  // "nvml", a library that speaks it ("ixml"), "dcmi" or "level-zero"
  std::optional<EccCounts> ecc_volatile, ecc_aggregate;
  std::optional<RemappedRows> remapped_rows;
  std::optional<RetiredPages> retired_pages;
  std::optional<uint64_t> clocks_event_reasons;  // nvmlClocksEventReason* bits
  std::optional<uint32_t> alarm;  // DCMI's alarm level: 0 none, 1 minor, 2 major, 3 critical
  std::optional<std::vector<uint32_t>> fault_codes;  // DCMI's current fault codes (at most 128)
  // Level Zero's memory health, the worst module's: 1 ok, 2 degraded, 3 critical (running on
  // reduced memory), 4 replace; absent when every module says unknown.
  std::optional<uint32_t> memory_health;
  std::optional<RasErrors> ras;                          // Level Zero's RAS error sets
  std::optional<std::vector<LibraryProcess>> processes;  // running compute processes
  std::vector<std::string> errors;                       // calls that failed (not "not supported")
};

// What became of one vendor's health library: the API asked (or that would have been) and,
// when it gave no facts, why: absent, disabled, error, timeout, crashed, exited, protocol-error.
struct LibraryOutcome {
  std::string api;
  std::string reason;  // empty: it loaded and answered
  std::string detail;
};

// By PCI bus id ("0000:18:00.0"), what went wrong reading them (a crashed worker), and each
// vendor's library outcome (by registry id).
struct LibraryHealth {
  std::map<std::string, DeviceLibraryFacts> devices;
  std::vector<std::string> warnings;
  std::map<std::string, LibraryOutcome> vendors;
};

}  // namespace anygpu::health
