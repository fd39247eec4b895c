// Mock NVML with the health entry points: the h100-8x GPUs of mock_nvml_common.h, whose ECC
// counters, row remapping, retired pages, clocks-event reasons and running processes come from
// a file the test writes (path in MOCK_NVML_HEALTH_FILE, read on every call). Lines:
//
//   <index> ecc-volatile <corrected> <uncorrected>
//   <index> ecc-aggregate <corrected> <uncorrected>
//   <index> remap <corrected> <uncorrected> <pending 0|1> <failed 0|1>
//   <index> retired <multiple single-bit> <double-bit> <pending 0|1>
//   <index> clocks-event <bits, decimal>
//   <index> process <pid> <used bytes, or - for NVML_VALUE_NOT_AVAILABLE>
//   <index> util <pid> <smUtil percent> <age in microseconds>   one per-process sample
//   <index> util-unsupported  nvmlDeviceGetProcessUtilization answers NOT_SUPPORTED
//   <index> crash            every health call on this GPU dies with SIGSEGV
//   <index> unknown-error    the retired-pages calls answer NVML_ERROR_UNKNOWN
//
// A value without its line answers NVML_ERROR_NOT_SUPPORTED (no processes: an empty list).
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "mock_crash.h"
#include "mock_nvml_common.h"
#include "vendorlib/nvml/health_abi.h"

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlInit_v2() {
  mock_nvml::mark_initialized();
  return anygpu::nvml::kSuccess;
}

namespace {

using anygpu::nvml::Return;
constexpr Return kErrorUnknown = 999;  // NVML_ERROR_UNKNOWN

// The fields of GPU `index`'s line `key`, or nothing; dies first when the GPU has "crash".
std::optional<std::vector<std::string>> line_for(
    unsigned index, const std::string& key, std::vector<std::vector<std::string>>* all = nullptr) {
  const char* path = std::getenv("MOCK_NVML_HEALTH_FILE");
  if (!path) return std::nullopt;
  std::ifstream in(path);
  std::string line;
  std::optional<std::vector<std::string>> found;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    unsigned i = 0;
    std::string k;
    if (!(fields >> i >> k) || i != index) continue;
    if (k == "crash") mock_crash::segv();
    if (k != key) continue;
    std::vector<std::string> rest;
    for (std::string t; fields >> t;) rest.push_back(t);
    if (all) all->push_back(rest);
    found = rest;
  }
  return found;
}

Return check(anygpu::nvml::Device dev) {
  if (!mock_nvml::initialized()) return anygpu::nvml::kErrorUninitialized;
  if (!mock_nvml::valid(dev)) return mock_nvml::kErrorInvalidArgument;
  return anygpu::nvml::kSuccess;
}

unsigned long long num(const std::vector<std::string>& f, size_t i) {
  return i < f.size() ? std::stoull(f[i]) : 0;
}

}  // namespace

MOCK_NVML_EXPORT Return nvmlDeviceGetTotalEccErrors(anygpu::nvml::Device dev, int type, int counter,
                                                    unsigned long long* count) {
  if (auto r = check(dev); r != anygpu::nvml::kSuccess) return r;
  if (!count) return mock_nvml::kErrorInvalidArgument;
  auto f = line_for(dev->index,
                    counter == anygpu::nvml::kVolatileEcc ? "ecc-volatile" : "ecc-aggregate");
  if (!f) return anygpu::nvml::kErrorNotSupported;
  *count = num(*f, type == anygpu::nvml::kMemoryErrorCorrected ? 0 : 1);
  return anygpu::nvml::kSuccess;
}

MOCK_NVML_EXPORT Return nvmlDeviceGetRemappedRows(anygpu::nvml::Device dev, unsigned int* corr,
                                                  unsigned int* unc, unsigned int* pending,
                                                  unsigned int* failure) {
  if (auto r = check(dev); r != anygpu::nvml::kSuccess) return r;
  if (!corr || !unc || !pending || !failure) return mock_nvml::kErrorInvalidArgument;
  auto f = line_for(dev->index, "remap");
  if (!f) return anygpu::nvml::kErrorNotSupported;
  *corr = static_cast<unsigned>(num(*f, 0));
  *unc = static_cast<unsigned>(num(*f, 1));
  *pending = static_cast<unsigned>(num(*f, 2));
  *failure = static_cast<unsigned>(num(*f, 3));
  return anygpu::nvml::kSuccess;
}

// As nvml.h documents: pageCount 0 (or too small) answers INSUFFICIENT_SIZE with the count.
MOCK_NVML_EXPORT Return nvmlDeviceGetRetiredPages(anygpu::nvml::Device dev, int cause,
                                                  unsigned int* count,
                                                  unsigned long long* addresses) {
  if (auto r = check(dev); r != anygpu::nvml::kSuccess) return r;
  if (!count) return mock_nvml::kErrorInvalidArgument;
  if (line_for(dev->index, "unknown-error")) return kErrorUnknown;
  auto f = line_for(dev->index, "retired");
  if (!f) return anygpu::nvml::kErrorNotSupported;
  unsigned n = static_cast<unsigned>(num(*f, cause == anygpu::nvml::kRetiredDbe ? 1 : 0));
  if (n == 0) {
    *count = 0;
    return anygpu::nvml::kSuccess;
  }
  if (*count < n || !addresses) {
    *count = n;
    return anygpu::nvml::kErrorInsufficientSize;
  }
  for (unsigned i = 0; i < n; ++i) addresses[i] = 0x10000ULL + i;
  *count = n;
  return anygpu::nvml::kSuccess;
}

MOCK_NVML_EXPORT Return nvmlDeviceGetRetiredPagesPendingStatus(anygpu::nvml::Device dev,
                                                               int* pending) {
  if (auto r = check(dev); r != anygpu::nvml::kSuccess) return r;
  if (!pending) return mock_nvml::kErrorInvalidArgument;
  auto f = line_for(dev->index, "retired");
  if (!f) return anygpu::nvml::kErrorNotSupported;
  *pending = static_cast<int>(num(*f, 2));
  return anygpu::nvml::kSuccess;
}

MOCK_NVML_EXPORT Return nvmlDeviceGetCurrentClocksEventReasons(anygpu::nvml::Device dev,
                                                               unsigned long long* bits) {
  if (auto r = check(dev); r != anygpu::nvml::kSuccess) return r;
  if (!bits) return mock_nvml::kErrorInvalidArgument;
  auto f = line_for(dev->index, "clocks-event");
  if (!f) return anygpu::nvml::kErrorNotSupported;
  *bits = num(*f, 0);
  return anygpu::nvml::kSuccess;
}

MOCK_NVML_EXPORT Return nvmlDeviceGetComputeRunningProcesses_v3(anygpu::nvml::Device dev,
                                                                unsigned int* count,
                                                                anygpu::nvml::ProcessInfo* infos) {
  if (auto r = check(dev); r != anygpu::nvml::kSuccess) return r;
  if (!count) return mock_nvml::kErrorInvalidArgument;
  std::vector<std::vector<std::string>> all;
  line_for(dev->index, "process", &all);
  unsigned n = static_cast<unsigned>(all.size());
  if (*count < n || (n && !infos)) {
    *count = n;
    return anygpu::nvml::kErrorInsufficientSize;
  }
  for (unsigned i = 0; i < n; ++i) {
    const auto& f = all[i];
    infos[i].pid = static_cast<unsigned>(num(f, 0));
    infos[i].usedGpuMemory =
        f.size() > 1 && f[1] != "-" ? std::stoull(f[1]) : anygpu::nvml::kValueNotAvailable;
    infos[i].gpuInstanceId = 0xFFFFFFFFu;
    infos[i].computeInstanceId = 0xFFFFFFFFu;
  }
  *count = n;
  return anygpu::nvml::kSuccess;
}

// As nvml.h documents: a NULL buffer (or one too small) answers INSUFFICIENT_SIZE with the
// count; no sample newer than last_seen answers NOT_FOUND. Timestamps are the CPU's, in us.
MOCK_NVML_EXPORT Return nvmlDeviceGetProcessUtilization(
    anygpu::nvml::Device dev, anygpu::nvml::ProcessUtilizationSample* samples, unsigned int* count,
    unsigned long long last_seen) {
  if (auto r = check(dev); r != anygpu::nvml::kSuccess) return r;
  if (!count) return mock_nvml::kErrorInvalidArgument;
  if (line_for(dev->index, "util-unsupported")) return anygpu::nvml::kErrorNotSupported;
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  auto now = static_cast<unsigned long long>(ts.tv_sec) * 1000000ull +
             static_cast<unsigned long long>(ts.tv_nsec) / 1000ull;
  std::vector<std::vector<std::string>> all;
  line_for(dev->index, "util", &all);
  std::vector<anygpu::nvml::ProcessUtilizationSample> fresh;
  for (const auto& f : all) {
    anygpu::nvml::ProcessUtilizationSample s{};
    s.pid = static_cast<unsigned>(num(f, 0));
    s.smUtil = static_cast<unsigned>(num(f, 1));
    s.timeStamp = now - num(f, 2);
    if (s.timeStamp > last_seen) fresh.push_back(s);
  }
  if (fresh.empty()) return anygpu::nvml::kErrorNotFound;
  auto n = static_cast<unsigned>(fresh.size());
  if (!samples || *count < n) {
    *count = n;
    return anygpu::nvml::kErrorInsufficientSize;
  }
  for (unsigned i = 0; i < n; ++i) samples[i] = fresh[i];
  *count = n;
  return anygpu::nvml::kSuccess;
}

static_assert(
    std::is_same_v<decltype(&nvmlDeviceGetProcessUtilization), anygpu::nvml::ProcessUtilizationFn>);
static_assert(std::is_same_v<decltype(&nvmlDeviceGetTotalEccErrors), anygpu::nvml::TotalEccFn>);
static_assert(std::is_same_v<decltype(&nvmlDeviceGetRemappedRows), anygpu::nvml::RemappedRowsFn>);
static_assert(std::is_same_v<decltype(&nvmlDeviceGetRetiredPages), anygpu::nvml::RetiredPagesFn>);
static_assert(std::is_same_v<decltype(&nvmlDeviceGetRetiredPagesPendingStatus),
                             anygpu::nvml::PendingStatusFn>);
static_assert(std::is_same_v<decltype(&nvmlDeviceGetCurrentClocksEventReasons),
                             anygpu::nvml::EventReasonsFn>);
static_assert(std::is_same_v<decltype(&nvmlDeviceGetComputeRunningProcesses_v3),
                             anygpu::nvml::RunningProcessesFn>);
