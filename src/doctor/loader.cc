#include "doctor/loader.h"

#include <cctype>
#include <cerrno>
#include <deque>

#include "util/strings.h"

namespace anygpu {

namespace {

constexpr size_t kMaxObjects = 4096;  // a runaway dependency graph stops here
constexpr uint64_t kDf1Nodeflib = 0x800;

std::string dirname_of(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string basename_of(std::string_view path) {
  auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// Replaces $NAME and ${NAME} in `s`.
std::string substitute(std::string s, std::string_view name, std::string_view value) {
  for (const auto& token : {cat({"${", name, "}"}), cat({"$", name})}) {
    size_t at = 0;
    while ((at = s.find(token, at)) != std::string::npos) {
      // "$LIBX" is not "$LIB": the name must end there.
      size_t end = at + token.size();
      if (token[1] != '{' && end < s.size() &&
          (std::isalnum(static_cast<unsigned char>(s[end])) || s[end] == '_')) {
        at = end;
        continue;
      }
      s.replace(at, token.size(), value);
      at += value.size();
    }
  }
  return s;
}

}  // namespace

std::string_view to_string(SearchStage s) {
  switch (s) {
    case SearchStage::path:
      return "path in DT_NEEDED";
    case SearchStage::rpath:
      return "DT_RPATH";
    case SearchStage::ld_library_path:
      return "LD_LIBRARY_PATH";
    case SearchStage::runpath:
      return "DT_RUNPATH";
    case SearchStage::ld_cache:
      return "ld.so.cache";
    case SearchStage::default_dirs:
      return "default directories";
  }
  return "?";
}

std::string multiarch_triplet(std::string_view arch) {
  if (arch == "x86_64") return "x86_64-linux-gnu";
  if (arch == "aarch64" || arch == "arm64") return "aarch64-linux-gnu";
  if (arch == "ppc64le") return "powerpc64le-linux-gnu";
  if (arch == "s390x") return "s390x-linux-gnu";
  if (arch == "riscv64") return "riscv64-linux-gnu";
  if (arch == "loongarch64") return "loongarch64-linux-gnu";
  if (arch == "i686" || arch == "i386") return "i386-linux-gnu";
  return {};
}

std::vector<std::string> default_library_dirs(std::string_view arch) {
  std::vector<std::string> dirs;
  auto triplet = multiarch_triplet(arch);
  if (!triplet.empty()) {
    dirs.push_back("/lib/" + triplet);
    dirs.push_back("/usr/lib/" + triplet);
  }
  // Upstream glibc's 64-bit default on lib64 ports (Fedora/RHEL layout).
  if (arch == "x86_64" || arch == "aarch64" || arch == "ppc64le" || arch == "s390x") {
    dirs.push_back("/lib64");
    dirs.push_back("/usr/lib64");
  }
  dirs.push_back("/lib");
  dirs.push_back("/usr/lib");
  return dirs;
}

std::vector<std::string> split_search_path(std::string_view value) {
  std::vector<std::string> out;
  if (value.empty()) return out;
  for (auto part : split(value, ':')) out.emplace_back(part);
  return out;
}

Loader::Loader(const HostRoot& host, LoaderSettings settings)
    : host_(host), settings_(std::move(settings)) {
  defaults_ = default_library_dirs(settings_.arch);
  auto triplet = multiarch_triplet(settings_.arch);
  lib_ = triplet.empty() ? "lib" : "lib/" + triplet;  // Debian's $LIB
  platform_ = settings_.arch;                         // AT_PLATFORM names the machine
}

Result<ElfInfo> Loader::elf(const std::string& host_path) {
  auto it = elf_cache_.find(host_path);
  if (it != elf_cache_.end()) return it->second;
  auto info = read_elf_file(host_.outside(host_path));
  if (!info) {
    Error e = info.error();
    // Name the host path (not the path beneath --root) in messages.
    auto outside = host_.outside(host_path);
    if (!host_.is_real_root() && e.message.compare(0, outside.size(), outside) == 0)
      e.message = host_path + e.message.substr(outside.size());
    // A file the search meets but cannot read (a FIFO named like a library blocks ld.so's
    // open forever) is said once, with the next graph.
    if (e.sys_errno != ENOENT) unreadable_.push_back(e.message);
    info = e;
  }
  return elf_cache_.emplace(host_path, std::move(info)).first->second;
}

std::vector<std::string> Loader::expand(std::string_view path_list,
                                        const std::string& origin) const {
  std::vector<std::string> dirs;
  for (auto part : split(path_list, ':')) {
    std::string d = substitute(std::string(part), "ORIGIN", origin);
    d = substitute(std::move(d), "LIB", lib_);
    d = substitute(std::move(d), "PLATFORM", platform_);
    // Relative entries resolve against the process's working directory, unknowable here.
    if (d.empty() || d.front() != '/') continue;
    while (d.size() > 1 && d.back() == '/') d.pop_back();
    dirs.push_back(std::move(d));
  }
  return dirs;
}

std::optional<Candidate> Loader::try_file(const std::string& dir, std::string_view name,
                                          const ElfInfo& consumer, SearchStage stage,
                                          const std::string& entry) {
  std::string path = dir == "/" ? cat({"/", name}) : cat({dir, "/", name});
  auto it = real_.find(path);
  if (it == real_.end()) {
    auto r = host_.resolve(path);
    it = real_.emplace(path, r ? std::optional<std::string>(*r) : std::nullopt).first;
  }
  if (!it->second) return std::nullopt;
  auto info = elf(*it->second);
  // ld.so skips files of another class or machine (and unreadable ones) and searches on.
  if (!info || info->is_64 != consumer.is_64 || info->machine != consumer.machine)
    return std::nullopt;
  return Candidate{path, *it->second, stage, entry};
}

std::vector<Candidate> Loader::search(const LoadGraph& g, int consumer, std::string_view needed,
                                      bool all, std::vector<std::string>& searched) {
  std::vector<Candidate> out;
  const auto& obj = g.objects[static_cast<size_t>(consumer)];
  auto take = [&](const std::string& dir, SearchStage stage, const std::string& entry) {
    searched.push_back(dir);
    if (auto c = try_file(dir, needed, obj.elf, stage, entry)) out.push_back(std::move(*c));
    return !all && !out.empty();
  };
  if (needed.find('/') != std::string_view::npos) {
    // A path: opened as is (relative ones against the working directory, unknowable here).
    if (needed.front() == '/') {
      auto dir = dirname_of(std::string(needed));
      searched.push_back(dir);
      if (auto c = try_file(dir, basename_of(needed), obj.elf, SearchStage::path, dir))
        out.push_back(std::move(*c));
    }
    return out;
  }
  // 1. DT_RPATH of the object and its loaders, unless the object has DT_RUNPATH.
  if (!obj.elf.runpath) {
    for (int i = consumer; i >= 0; i = g.objects[static_cast<size_t>(i)].loader) {
      const auto& l = g.objects[static_cast<size_t>(i)];
      if (!l.elf.rpath || l.elf.runpath) continue;
      for (const auto& d : expand(*l.elf.rpath, dirname_of(l.path)))
        if (take(d, SearchStage::rpath, *l.elf.rpath)) return out;
    }
  }
  // 2. LD_LIBRARY_PATH.
  for (const auto& entry : settings_.ld_library_path) {
    if (entry.empty() || entry.front() != '/') continue;  // the working directory
    for (const auto& d : expand(entry, dirname_of(obj.path)))
      if (take(d, SearchStage::ld_library_path, entry)) return out;
  }
  // 3. DT_RUNPATH of the object itself.
  if (obj.elf.runpath)
    for (const auto& d : expand(*obj.elf.runpath, dirname_of(obj.path)))
      if (take(d, SearchStage::runpath, *obj.elf.runpath)) return out;
  if (obj.elf.flags_1 & kDf1Nodeflib) return out;
  // 4. ld.so.cache.
  if (settings_.cache) {
    searched.push_back("/etc/ld.so.cache");
    if (auto e = ld_cache_lookup(*settings_.cache, needed, obj.elf.machine, obj.elf.is_64)) {
      auto dir = dirname_of(e->path);
      if (auto c = try_file(dir, basename_of(e->path), obj.elf, SearchStage::ld_cache, dir)) {
        out.push_back(std::move(*c));
        if (!all) return out;
      }
    }
  }
  // 5. Default directories.
  for (const auto& d : defaults_)
    if (take(d, SearchStage::default_dirs, d)) return out;
  return out;
}

LoadGraph Loader::load_impl(const std::string& start, const ElfInfo* synthetic,
                            const std::function<bool(std::string_view)>& all_candidates) {
  LoadGraph g;
  if (synthetic) {
    g.objects.push_back({start, start, *synthetic, -1});
  } else {
    auto info = elf(start);
    if (!info) {
      g.problems = take_unreadable();
      return g;
    }
    auto real = host_.resolve(start);
    g.objects.push_back({start, real ? *real : start, *info, -1});
  }
  const ElfInfo* info = &g.objects[0].elf;
  std::map<std::string, int, std::less<>> by_name;  // names and sonames already loaded
  std::map<std::string, int> by_real;
  by_name[basename_of(start)] = 0;
  if (info->soname) by_name[*info->soname] = 0;
  by_real[g.objects[0].real] = 0;
  std::deque<int> queue{0};
  // Breadth first, like ld.so's _dl_map_object_deps.
  while (!queue.empty()) {
    int i = queue.front();
    queue.pop_front();
    auto needed = g.objects[static_cast<size_t>(i)].elf.needed;
    for (const auto& n : needed) {
      NeededResolution res;
      res.consumer = i;
      res.needed = n;
      bool all = all_candidates(n);
      auto hit = by_name.find(n);
      if (hit != by_name.end() && !all) {
        res.loaded = hit->second;
        res.reused = true;
        g.resolutions.push_back(std::move(res));
        continue;
      }
      res.candidates = search(g, i, n, all, res.searched);
      if (hit != by_name.end()) {
        res.loaded = hit->second;
        res.reused = true;
      } else if (!res.candidates.empty()) {
        const auto& win = res.candidates.front();
        auto same = by_real.find(win.real);
        if (same != by_real.end()) {
          res.loaded = same->second;  // the same file under another name: not loaded twice
        } else if (g.objects.size() < kMaxObjects) {
          auto winfo = elf(win.real);
          res.loaded = static_cast<int>(g.objects.size());
          g.objects.push_back({win.path, win.real, winfo ? *winfo : ElfInfo{}, i});
          by_real[win.real] = res.loaded;
          queue.push_back(res.loaded);
        }
        if (res.loaded >= 0) {
          by_name[n] = res.loaded;
          if (const auto& so = g.objects[static_cast<size_t>(res.loaded)].elf.soname)
            by_name.emplace(*so, res.loaded);
        }
      }
      g.resolutions.push_back(std::move(res));
    }
  }
  g.problems = take_unreadable();
  return g;
}

}  // namespace anygpu
