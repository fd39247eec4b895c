// Mock NVML with the metric entry points: the h100-8x GPUs of mock_nvml_common.h, whose
// utilization, temperature, power, energy and clocks come from a file the test writes and
// rewrites (path in MOCK_NVML_METRICS_FILE; read on every call, so a change shows at the next
// sample). One line per GPU:
//
//   <index> <util %> <temp °C> <power mW> <energy mJ> <graphics MHz> <sm MHz> <mem MHz>
//
// A field "-" answers NVML_ERROR_NOT_SUPPORTED. A line "hang" makes every metric call block
// until the line is removed, like NVML on a GPU that stopped answering. Without the file (or
// the GPU's line) every metric answers NOT_SUPPORTED.
//
// Faults inside a sample, after nvmlInit succeeded: a line "segv N", "abort N", "exit N",
// "print N" or "fd3 N" makes the process's Nth nvmlDeviceGetUtilizationRates call (counted
// from 1 in each process; N omitted: every call) dereference NULL, abort(), _exit(3), print to
// stdout and stderr, or write a line to file descriptor 3 (the worker's reply channel).
// MOCK_NVML_INIT_MARKER names a file nvmlInit appends a line to: the proof it ran, and in
// which process ("nvmlInit_v2 pid N mode M": M is the worker's mode, `probe`, `health` or
// `sample`, or `-` outside a worker), so a test can count discoveries.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "mock_crash.h"
#include "mock_nvml_common.h"
#include "vendorlib/nvml/metrics_abi.h"

namespace {

// argv[2] of `anygpu __worker MODE PARENT`, read from /proc/self/cmdline; "-" otherwise.
std::string worker_mode() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string arg;
  std::vector<std::string> argv;
  while (std::getline(in, arg, '\0')) argv.push_back(arg);
  return argv.size() > 2 && argv[1] == "__worker" ? argv[2] : "-";
}

}  // namespace

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlInit_v2() {
  if (const char* marker = std::getenv("MOCK_NVML_INIT_MARKER"))
    if (FILE* f = std::fopen(marker, "a")) {
      std::fprintf(f, "nvmlInit_v2 pid %d mode %s\n", static_cast<int>(::getpid()),
                   worker_mode().c_str());
      std::fclose(f);
    }
  mock_nvml::mark_initialized();
  return anygpu::nvml::kSuccess;
}

namespace {

using anygpu::nvml::Return;
constexpr int kFields = 7;

struct Row {
  bool hang = false;
  bool found = false;
  long long value[kFields] = {};
  bool present[kFields] = {};
};

// The file's row for GPU `index`, and whether the file says to hang.
Row read_row(unsigned index) {
  Row row;
  const char* path = std::getenv("MOCK_NVML_METRICS_FILE");
  if (!path) return row;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("hang", 0) == 0) row.hang = true;
    std::istringstream fields(line);
    unsigned i = 0;
    if (!(fields >> i) || i != index) continue;
    row.found = true;
    for (int f = 0; f < kFields; ++f) {
      std::string tok;
      if (!(fields >> tok) || tok == "-") continue;
      row.value[f] = std::stoll(tok);
      row.present[f] = true;
    }
  }
  return row;
}

// The fault the file asks for on this call of nvmlDeviceGetUtilizationRates, if any.
void maybe_fault() {
  static std::atomic<long> calls{0};
  long call = ++calls;
  const char* path = std::getenv("MOCK_NVML_METRICS_FILE");
  if (!path) return;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string what;
    long at = 0;
    words >> what;
    if (!(words >> at)) at = call;
    if (at != call) continue;
    if (what == "segv") mock_crash::segv();
    if (what == "abort") std::abort();
    if (what == "exit") ::_exit(3);
    if (what == "print") {
      std::printf("mock-nvml: sampling on stdout\n");
      std::fflush(stdout);
      std::fprintf(stderr, "mock-nvml: and on stderr\n");
    }
    if (what == "fd3") {
      static const char kLine[] = "export PWNED=1\n";
      if (::write(3, kLine, sizeof kLine - 1) < 0) std::abort();
    }
  }
}

// Field `f` of the device's row, after waiting out a "hang".
Return field(anygpu::nvml::Device dev, int f, long long* out) {
  using namespace mock_nvml;
  if (!initialized()) return anygpu::nvml::kErrorUninitialized;
  if (!valid(dev) || !out) return kErrorInvalidArgument;
  Row row = read_row(dev->index);
  while (row.hang) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    row = read_row(dev->index);
  }
  if (!row.present[f]) return anygpu::nvml::kErrorNotSupported;
  *out = row.value[f];
  return anygpu::nvml::kSuccess;
}

template <class T>
Return field_as(anygpu::nvml::Device dev, int f, T* out) {
  long long v = 0;
  Return r = field(dev, f, &v);
  if (r == anygpu::nvml::kSuccess) *out = static_cast<T>(v);
  return r;
}

}  // namespace

MOCK_NVML_EXPORT Return nvmlDeviceGetUtilizationRates(anygpu::nvml::Device dev,
                                                      anygpu::nvml::Utilization* u) {
  if (!u) return mock_nvml::kErrorInvalidArgument;
  maybe_fault();
  unsigned gpu = 0;
  Return r = field_as(dev, 0, &gpu);
  if (r == anygpu::nvml::kSuccess) *u = {gpu, gpu / 2};
  return r;
}

MOCK_NVML_EXPORT Return nvmlDeviceGetTemperature(anygpu::nvml::Device dev, int sensor,
                                                 unsigned int* temp) {
  if (sensor != anygpu::nvml::kTemperatureGpu) return mock_nvml::kErrorInvalidArgument;
  return field_as(dev, 1, temp);
}

MOCK_NVML_EXPORT Return nvmlDeviceGetPowerUsage(anygpu::nvml::Device dev, unsigned int* mw) {
  return field_as(dev, 2, mw);
}

MOCK_NVML_EXPORT Return nvmlDeviceGetEnforcedPowerLimit(anygpu::nvml::Device dev,
                                                        unsigned int* mw) {
  using namespace mock_nvml;
  if (!initialized()) return anygpu::nvml::kErrorUninitialized;
  if (!valid(dev) || !mw) return kErrorInvalidArgument;
  *mw = 700000;  // H100 SXM: 700 W
  return anygpu::nvml::kSuccess;
}

MOCK_NVML_EXPORT Return nvmlDeviceGetTotalEnergyConsumption(anygpu::nvml::Device dev,
                                                            unsigned long long* mj) {
  return field_as(dev, 3, mj);
}

MOCK_NVML_EXPORT Return nvmlDeviceGetClockInfo(anygpu::nvml::Device dev, int type,
                                               unsigned int* mhz) {
  switch (type) {
    case anygpu::nvml::kClockGraphics:
      return field_as(dev, 4, mhz);
    case anygpu::nvml::kClockSm:
      return field_as(dev, 5, mhz);
    case anygpu::nvml::kClockMem:
      return field_as(dev, 6, mhz);
    default:
      return anygpu::nvml::kErrorNotSupported;
  }
}

static_assert(
    std::is_same_v<decltype(&nvmlDeviceGetUtilizationRates), anygpu::nvml::UtilizationFn>);
static_assert(std::is_same_v<decltype(&nvmlDeviceGetTemperature), anygpu::nvml::TemperatureFn>);
static_assert(std::is_same_v<decltype(&nvmlDeviceGetPowerUsage), anygpu::nvml::PowerFn>);
static_assert(
    std::is_same_v<decltype(&nvmlDeviceGetTotalEnergyConsumption), anygpu::nvml::EnergyFn>);
static_assert(std::is_same_v<decltype(&nvmlDeviceGetClockInfo), anygpu::nvml::ClockFn>);
