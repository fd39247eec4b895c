// `anygpu doctor`: every check over one host, and the findings as text or anygpu.doctor/v1.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "doctor/checks.h"

namespace anygpu {

// The environment, user, groups and open-file limit of this process; `python`'s sys.path
// (empty, with `python_error` set, when it cannot be asked).
struct ProcessFacts {
  std::map<std::string, std::string> env;
  uid_t uid = 0;
  std::vector<gid_t> gids;
  std::optional<uint64_t> nofile_soft;
  std::vector<std::string> python_sys_path;
  std::string python_error;
};
ProcessFacts current_process_facts(const std::string& python);

// Runs every check; `framework` adds the installed framework build's findings. Errors first,
// then warnings, then infos; stable within a severity.
std::vector<Finding> run_doctor(const DoctorContext& ctx, bool framework = true);

// anygpu.doctor/v1 publishes a finding as {id, severity, title, detail, fix} (code, message,
// evidence and action by their 0.1 names) and the top level as "error".
std::string_view doctor_severity_word(Severity s);
nlohmann::ordered_json findings_to_json(const std::vector<Finding>& findings);
std::string findings_to_text(const std::vector<Finding>& findings, bool color);
bool has_errors(const std::vector<Finding>& findings);

}  // namespace anygpu
