#include "launch/shell_quote.h"

#include "select/render.h"

namespace anygpu {

std::string shell_join(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    out += shell_quote(a);
  }
  return out;
}

std::string plan_to_shell(const LaunchPlan& plan) {
  std::vector<std::string> words;
  if (!plan.env.empty() || !plan.unset_env.empty()) {
    words.push_back("env");
    for (const auto& name : plan.unset_env) {
      words.push_back("-u");
      words.push_back(name);
    }
    for (const auto& [name, value] : plan.env) words.push_back(name + "=" + value);
    // A command containing '=' would otherwise be read by env(1) as another assignment.
    if (!plan.argv.empty() && plan.argv.front().find('=') != std::string::npos)
      words.push_back("--");
  }
  words.insert(words.end(), plan.argv.begin(), plan.argv.end());
  return shell_join(words);
}

}  // namespace anygpu
