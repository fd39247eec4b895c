// data/health.yaml: NVIDIA Xid numbers and other drivers' kernel messages, each with a
// severity and an action. Embedded at build time and parsed on first use.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "health/finding.h"
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
  std::string action;
};

struct HealthRules {
  std::map<int, XidRule> xid;
  XidRule unknown_xid;
  std::vector<MessageRule> messages;
  std::map<std::string, CodeRule> library;  // by code

  const XidRule& for_xid(int id) const;
};

Result<HealthRules> parse_health_rules(std::string_view text, const std::string& file);
const HealthRules& builtin_health_rules();  // data/health.yaml as built

}  // namespace anygpu::health
