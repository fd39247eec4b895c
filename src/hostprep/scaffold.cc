#include "hostprep/scaffold.h"

#include <sys/stat.h>

#include "util/atomic_file.h"
#include "util/strings.h"

namespace anygpu {

// Generated from data/init/ at configure time (init_templates_data.cc).
std::vector<TemplateFile> init_templates_embedded();

std::vector<TemplateFile> init_templates() {
  return init_templates_embedded();
}

Result<ScaffoldResult> scaffold_experiment(const std::string& dir, bool force) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
    return bad_input(cat({dir, ": exists and is not a directory"}));
  ScaffoldResult r;
  auto files = init_templates();
  for (const auto& f : files) {
    auto target = cat({dir, "/", f.path});
    if (::lstat(target.c_str(), &st) == 0) r.existing.emplace_back(f.path);
  }
  if (!r.existing.empty() && !force) return r;
  for (const auto& f : files) {
    auto target = cat({dir, "/", f.path});
    auto w = write_file_atomic(target, f.content, f.executable ? 0755 : 0644);
    if (!w) return internal_error(cat({target, ": ", w.error().message}));
    r.written.emplace_back(f.path);
  }
  return r;
}

}  // namespace anygpu
