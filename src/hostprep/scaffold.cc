#include "hostprep/scaffold.h"

#include <sys/stat.h>

#include "host/confined_writer.h"
#include "util/strings.h"

namespace anygpu {

// Generated from data/init/ at configure time (init_templates_data.cc).
std::vector<TemplateFile> init_templates_embedded();

std::vector<TemplateFile> init_templates() {
  return init_templates_embedded();
}

Result<ScaffoldResult> scaffold_experiment(const std::string& dir, bool force) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
    return bad_input(cat({dir, ": exists and is not a directory"}));
  auto root = ConfinedDir::open(dir, Confinement::no_symlinks, /*create=*/true);
  if (!root) return root.error();
  ScaffoldResult r;
  auto files = init_templates();
  for (const auto& f : files)
    if (root->exists(f.path)) r.existing.emplace_back(f.path);
  if (!r.existing.empty() && !force) return r;
  // Every target is checked before the first is written: a refused one (a link on the way,
  // e.g. DIR/.github) leaves the directory as it was.
  for (const auto& f : files)
    if (auto ok = root->check(f.path); !ok) return ok.error();
  for (const auto& f : files) {
    auto w = root->write_file(f.path, f.content, {.mode = f.executable ? 0755u : 0644u});
    if (!w) return w.error();
    r.written.emplace_back(f.path);
  }
  return r;
}

}  // namespace anygpu
