#include "cdi/cdi_resolve.h"

#include <algorithm>

#include "util/strings.h"

namespace anygpu {

namespace {

std::string qualified(const CdiSpec& spec, std::string_view name) {
  return cat({spec.kind, "=", name});
}

}  // namespace

CdiNameTable::CdiNameTable(const std::vector<CdiSpec>& specs) {
  std::vector<const CdiSpec*> order;
  for (const auto& s : specs) order.push_back(&s);
  // The runtime's reading order: directory by directory (files already in name order).
  std::stable_sort(order.begin(), order.end(),
                   [](const CdiSpec* a, const CdiSpec* b) { return a->priority < b->priority; });
  auto record = [&](const CdiSpec* first, const CdiSpec* second, const std::string& name) {
    auto it = std::find_if(clashes_.begin(), clashes_.end(), [&](const CdiClash& c) {
      return c.first == first && c.second == second;
    });
    if (it == clashes_.end())
      it = clashes_.insert(clashes_.end(),
                           {second->kind, {}, first, second, first->priority == second->priority});
    it->names.push_back(name);
  };
  for (const auto* s : order)
    for (const auto& d : s->devices) {
      auto q = qualified(*s, d.name);
      auto [it, fresh] = owners_.try_emplace(q, s);
      if (fresh) continue;
      const CdiSpec* old = it->second;
      record(old, s, d.name);
      if (s->priority > old->priority) {
        it->second = s;
        continue;
      }
      auto& both = conflicts_[q];
      if (both.empty()) both.push_back(old);
      both.push_back(s);
    }
  // Dropped at the end, whoever holds them by then (cache.go deletes every conflicting name).
  for (const auto& [q, specs_of] : conflicts_) owners_.erase(q);
}

const CdiSpec* CdiNameTable::owner(std::string_view kind, std::string_view name) const {
  auto it = owners_.find(cat({kind, "=", name}));
  return it == owners_.end() ? nullptr : it->second;
}

std::string CdiNameTable::why_not(const CdiSpec& spec, std::string_view name) const {
  auto q = qualified(spec, name);
  if (auto it = conflicts_.find(q); it != conflicts_.end()) {
    std::vector<std::string> files;
    for (const auto* s : it->second) files.push_back(s->file);
    return cat(
        {"runtimes refuse ", q, ": ", join(files, " and "), " both define it in one directory"});
  }
  const auto* o = owner(spec.kind, name);
  if (o == &spec) return {};
  if (o) return cat({"runtimes take ", q, " from ", o->file, " (a higher-priority directory)"});
  return cat({"no runtime resolves ", q});
}

}  // namespace anygpu
