#include "contract/check.h"

#include <algorithm>

#include "contract/evaluate.h"
#include "contract/spec.h"
#include "pyenv/python_env.h"
#include "render/json_text.h"
#include "util/strings.h"

namespace anygpu {

std::string_view to_string(CheckStatus s) {
  switch (s) {
    case CheckStatus::pass:
      return "pass";
    case CheckStatus::fail:
      return "fail";
    case CheckStatus::warn:
      return "warn";
    case CheckStatus::skip:
      return "skip";
  }
  return "fail";
}

bool Verdict::passed() const {
  return failures() == 0;
}

size_t Verdict::failures() const {
  return static_cast<size_t>(std::count_if(checks.begin(), checks.end(), [](const CheckResult& c) {
    return c.status == CheckStatus::fail;
  }));
}

Result<Verdict> check_contract_file(const std::string& path, const Inventory& inventory,
                                    const CheckOptions& options) {
  auto spec = load_contract(path);
  if (!spec) return spec.error();
  PythonFacts py;
  py.python = options.python;
  py.image = options.image;
  // The interpreter runs only when the contract names packages the host's Python holds.
  if (!spec->dependencies.empty() && py.image.empty()) {
    auto env = read_python_env(options.python);
    if (env)
      py.env = std::move(*env);
    else
      py.error = env.error().message;
  }
  return evaluate_contract(*spec, inventory, py);
}

std::string render_check_text(const std::string& spec_path, const Verdict& verdict) {
  std::string out = cat({"[INFO] Loading runtime contract from ", spec_path, "\n"});
  size_t counted = 0;
  for (const auto& c : verdict.checks) {
    if (c.status == CheckStatus::pass) {
      out += cat({"[CHECK] ", c.name, ": ", c.observed, " - OK"});
      if (!c.message.empty()) out += cat({" (", c.message, ")"});
      out += "\n";
    } else if (c.status == CheckStatus::skip) {
      out += cat({"[SKIP] ", c.name, ": ", c.message, "\n"});
      continue;
    } else {
      out += cat(
          {c.status == CheckStatus::fail ? "[ERROR] " : "[WARN] ", c.name, ": ", c.message, "\n"});
      if (!c.suggestion.empty()) out += cat({"        Suggestion: ", c.suggestion, "\n"});
    }
    ++counted;
  }
  auto failed = verdict.failures();
  if (failed == 0)
    out += "[SUCCESS] All checks passed. Environment is compatible.\n";
  else
    out += cat({"[FAILED] ", std::to_string(failed), " of ", std::to_string(counted),
                " checks failed.\n"});
  return out;
}

nlohmann::ordered_json render_check_json(const Verdict& verdict) {
  nlohmann::ordered_json j;
  j["schema"] = "anygpu.check/v1";
  j["passed"] = verdict.passed();
  j["checks"] = nlohmann::ordered_json::array();
  auto str = [](const std::string& s) {
    return s.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s);
  };
  for (const auto& c : verdict.checks) {
    nlohmann::ordered_json o;
    o["name"] = c.name;
    o["status"] = std::string(to_string(c.status));
    o["observed"] = str(c.observed);
    o["required"] = str(c.required);
    o["message"] = str(c.message);
    o["suggestion"] = str(c.suggestion);
    j["checks"].push_back(std::move(o));
  }
  return j;
}

}  // namespace anygpu
