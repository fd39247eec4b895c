#include "health/coverage.h"

#include <cerrno>

namespace anygpu::health {

std::string_view unread_reason(const Error& e) {
  switch (e.sys_errno) {
    case EACCES:
    case EPERM:
      return "permission-denied";
    case ENOENT:
    case ENOTDIR:
    case ENODEV:
    case ENXIO:
      return "absent";
    default:
      return "error";
  }
}

std::string_view fault_channel(std::string_view vendor) {
  // Ascend reports faults through DCMI's alarm level and fault codes (what its device plugin
  // reads); its kernel messages are not catalogued as verified. Every other driver anygpu knows
  // reports resets, hangs, Xids and RAS events in the kernel log, which no library replaces:
  // NVML's counters carry no Xid.
  return vendor == "ascend" ? "dcmi" : kKernelLogSource;
}

bool is_essential(std::string_view vendor, std::string_view source) {
  return source == kPcieSource || source == fault_channel(vendor);
}

SourceReading read_source(std::string_view source, std::string detail) {
  return {std::string(source), true, false, {}, std::move(detail)};
}

SourceReading unread_source(std::string_view source, std::string_view reason, std::string detail) {
  return {std::string(source), false, false, std::string(reason), std::move(detail)};
}

void SourceTally::failed(std::string_view reason, std::string detail) {
  if (!reason_.empty()) return;  // the first failure names the source's
  reason_ = reason;
  detail_ = std::move(detail);
}

void SourceTally::failed(const Error& e) {
  auto reason = unread_reason(e);
  if (reason != "absent") failed(reason, e.message);
}

void SourceTally::add_to(std::vector<SourceReading>& out, bool listed) const {
  if (read_)
    out.push_back(read_source(source_));
  else if (!reason_.empty())
    out.push_back(unread_source(source_, reason_, detail_));
  else if (listed)
    out.push_back(unread_source(source_, "absent", {}));
}

}  // namespace anygpu::health
