// data/health.yaml: NVIDIA Xid numbers, other drivers' kernel messages, the library finding
// codes and Ascend's fault codes, each with a severity and an action. Embedded at build time and
// parsed on first use.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "health/report.h"
#include "util/result.h"

namespace anygpu::health {

struct XidRule {
  int id = 0;
  Severity severity = Severity::warning;
  std::string summary, action, bucket;
  bool verified = true;
};

struct MessageRule {
  std::string driver;                 // the kernel driver that prints it
  std::vector<std::string> contains;  // every piece must appear in the message
  std::string code, message, action;
  Severity severity = Severity::warning;
  bool verified = true;
};

// A finding code from a vendor library's health call (ECC, row remapping, throttle reasons).
struct CodeRule {
  Severity severity = Severity::warning;
  std::string action;                         // names no vendor's tool
  std::map<std::string, std::string> by_api;  // the action for one library, with its tools

  const std::string& action_for(std::string_view api) const;
};

// A fault-handling level of Ascend's device fault codes (dcmi_get_device_errorcode_v2).
struct FaultLevelRule {
  std::string level, source;  // anygpu's name; the device plugin's list it comes from
  Severity severity = Severity::warning;
  std::string action;
};

struct HealthRules {
  std::map<int, XidRule> xid;
  XidRule unknown_xid;
  std::vector<MessageRule> messages;
  std::map<std::string, CodeRule> library;  // by code
  std::vector<FaultLevelRule> dcmi_fault_levels;
  std::map<uint32_t, size_t> dcmi_fault_codes;  // code -> index into dcmi_fault_levels
  FaultLevelRule unknown_dcmi_fault;

  const XidRule& for_xid(int id) const;
  const FaultLevelRule& for_dcmi_fault(uint32_t code) const;  // unknown_dcmi_fault if unlisted
};

Result<HealthRules> parse_health_rules(std::string_view text, const std::string& file);
const HealthRules& builtin_health_rules();  // data/health.yaml as built

}  // namespace anygpu::health
