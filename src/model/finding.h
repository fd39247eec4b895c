// A finding: something a command judged wrong, or worth knowing, about the host, in one shape for
// every command that judges: doctor, health, and the framework-build judge that doctor and
// `check` share. docs/design.md ("Findings") maps the fields to each published document.
#pragma once

#include <string>

namespace anygpu {

// Ordered: a later level is worse. The top level keeps the word each document published first,
// because scripts and alerts match on it: doctor says "error" (anygpu.doctor/v1, its text), health
// says "critical" (anygpu.health/v1, data/health.yaml, the `severity` label of
// anygpu_health_findings), the word of its device verdict. Each document spells the levels with
// its own function (doctor_severity_word, health::severity_word); there is no shared to_string.
enum class Severity { info, warning, error };

struct Finding {
  std::string code;  // stable, dotted: "driver.not-loaded", "torch.cuda-too-new", "pcie.aer.fatal"
  Severity severity = Severity::info;
  std::string message;   // one line for people
  std::string evidence;  // what was seen and where: values compared, "file: value", a kernel record
  std::string action;    // what to do; empty when there is nothing to do
};

}  // namespace anygpu
