// Which sources a device's health needs before it may be called `ok`, and how a read that
// failed is named (docs/health.md, "Sources").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "health/report.h"
#include "util/result.h"

namespace anygpu::health {

inline constexpr std::string_view kKernelLogSource = "kernel-log";
inline constexpr std::string_view kPcieSource = "pcie";

// The reason for a read that failed with `e`: permission-denied, absent or error.
std::string_view unread_reason(const Error& e);

// Whether a device of `vendor` is `unknown` while `source` is unread: its PCI function's state,
// and the channel its driver reports faults on (the kernel log; Ascend's DCMI).
bool is_essential(std::string_view vendor, std::string_view source);
// The source a vendor's health cannot do without beside its PCI function.
std::string_view fault_channel(std::string_view vendor);

SourceReading read_source(std::string_view source, std::string detail = {});
SourceReading unread_source(std::string_view source, std::string_view reason, std::string detail);

// One source made of several files (AER's three, RAS's blocks): read when one of them was,
// else unread for the first failure. A file that does not exist is no failure: the device
// simply lacks that counter, and a source none of whose files exist is not listed.
class SourceTally {
 public:
  explicit SourceTally(std::string_view source) : source_(source) {}
  void read() { read_ = true; }
  void failed(std::string_view reason, std::string detail);
  void failed(const Error& e);  // absent is ignored, as above
  bool has_failure() const { return !reason_.empty(); }
  // Adds the reading unless nothing of the source exists; `listed` adds it then too (absent).
  void add_to(std::vector<SourceReading>& out, bool listed = false) const;

 private:
  std::string source_, reason_, detail_;
  bool read_ = false;
};

}  // namespace anygpu::health
