// Library shadowing: two different files answering to one soname on an object's search path
// (the cause of `libcusparse.so.12: undefined symbol: __nvJitLink…` when a system CUDA on
// LD_LIBRARY_PATH displaces the wheel's nvidia/*/lib copy, which is only a DT_RUNPATH), and
// DT_NEEDED names that resolve nowhere.
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <set>

#include "doctor/checks.h"
#include "doctor/host_paths.h"
#include "util/regular_file.h"
#include "util/strings.h"

namespace anygpu {

namespace {

constexpr size_t kMaxStartObjects = 512;
constexpr size_t kCompareBytes = size_t{64} << 10;

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

// "libfoo.so", "libfoo.so.12", "libfoo.so.12.4.1".
bool is_shared_object_name(std::string_view name) {
  auto at = name.find(".so");
  return at != std::string_view::npos && (at + 3 == name.size() || name[at + 3] == '.');
}

struct FileId {
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
};

std::optional<FileId> file_id(const HostRoot& host, const std::string& real) {
  struct stat st {};
  if (::stat(host.outside(real).c_str(), &st) != 0) return std::nullopt;
  return FileId{st.st_dev, st.st_ino, st.st_size};
}

std::string head_bytes(const std::string& path) {
  auto b = read_regular_file(path, kCompareBytes, "shared object");
  return b ? std::move(*b) : std::string();
}

// Two paths are different libraries when they are different files with different content:
// a hard link or a byte-identical copy is harmless. Content is compared by size, then by GNU
// build-id when both have one, else by their first 64 KiB (the ELF headers and dynamic data).
bool different_libraries(const HostRoot& host, Loader& loader, const std::string& a,
                         const std::string& b) {
  if (a == b) return false;
  auto ia = file_id(host, a), ib = file_id(host, b);
  if (!ia || !ib) return false;
  if (ia->dev == ib->dev && ia->ino == ib->ino) return false;
  if (ia->size != ib->size) return true;
  auto ea = loader.elf(a), eb = loader.elf(b);
  if (ea && eb && !ea->build_id.empty() && !eb->build_id.empty())
    return ea->build_id != eb->build_id;
  return head_bytes(host.outside(a)) != head_bytes(host.outside(b));
}

std::string describe(const Candidate& c) {
  std::string where(to_string(c.stage));
  if (c.stage == SearchStage::rpath || c.stage == SearchStage::runpath ||
      c.stage == SearchStage::ld_library_path)
    where += cat({" ", c.dir});
  return cat({c.path, " (", where, ")"});
}

struct Shadow {
  std::string soname;
  std::string consumer;
  std::vector<Candidate> distinct;    // one per different library, in loader order
  std::string winner;                 // the path actually loaded
  std::optional<Candidate> intended;  // what the consumer gets without LD_LIBRARY_PATH
  size_t consumers = 0;
};

std::string ld_path_without(const std::vector<std::string>& entries,
                            const std::set<std::string>& drop) {
  std::vector<std::string> keep;
  for (const auto& e : entries)
    if (!drop.count(e)) keep.push_back(e);
  return join(keep, ":");
}

Finding shadow_finding(const Shadow& s, const std::vector<std::string>& ld_entries) {
  Finding f;
  f.code = "libs.shadowed";
  f.message = cat({s.soname, ": ", std::to_string(s.distinct.size()),
                   " different files answer to this soname"});
  std::string detail =
      cat({"Loading ", s.consumer.empty() ? "from a program" : s.consumer,
           s.consumers > 1 ? cat({" (and ", std::to_string(s.consumers - 1), " more objects)"})
                           : std::string(),
           ", the dynamic loader finds, in its search order:"});
  for (size_t i = 0; i < s.distinct.size(); ++i) {
    detail += cat({"\n  ", std::to_string(i + 1), ". ", describe(s.distinct[i])});
    if (s.distinct[i].real == s.winner || s.distinct[i].path == s.winner) detail += "  <- loaded";
  }
  bool displaced = s.intended && s.intended->real != s.winner;
  std::set<std::string> drop;
  for (const auto& c : s.distinct)
    if (c.stage == SearchStage::ld_library_path && (!s.intended || c.real != s.intended->real))
      drop.insert(c.dir);
  auto rest = ld_path_without(ld_entries, drop);
  auto fix_ld =
      rest.empty() ? std::string("unset LD_LIBRARY_PATH") : cat({"export LD_LIBRARY_PATH=", rest});
  if (displaced) {
    f.severity = Severity::error;
    detail += cat({"\nThe object was built to use ", s.intended->path, " (",
                   std::string(to_string(s.intended->stage)),
                   "), but LD_LIBRARY_PATH is searched first and puts another build in its "
                   "place: the cause of `undefined symbol` errors such as `libcusparse.so.12: "
                   "undefined symbol: __nvJitLink…`."});
    f.action = cat({fix_ld, "   # let the framework use its own copy"});
  } else {
    f.severity = Severity::warning;
    detail +=
        "\nThe first one wins; a process (or a library) that expects the other build "
        "fails with `undefined symbol` or a version error.";
    f.action = drop.empty() ? cat({"remove the copies that should not be used, or put the intended "
                                   "directory first in LD_LIBRARY_PATH"})
                            : fix_ld;
  }
  f.evidence = std::move(detail);
  return f;
}

// A file the loader's search meets but cannot read: the dynamic loader fails on it too, and
// blocks for good on a FIFO.
Finding unreadable_library(const std::string& why) {
  return {"libs.unreadable", Severity::warning, "a library cannot be read", why,
          "replace it with the library, or remove it from the search path"};
}

// Regular shared objects directly in `dir` (symlinks to the same file counted once).
std::vector<std::string> shared_objects_in(const HostRoot& host, const std::string& dir) {
  std::vector<std::string> out;
  auto names = host.list_dir(dir);
  if (!names) return out;
  for (const auto& n : *names)
    if (is_shared_object_name(n)) out.push_back(cat({dir, "/", n}));
  return out;
}

std::string arch_of(const DoctorContext& ctx) {
  if (ctx.inventory.host.arch) return *ctx.inventory.host.arch;
#if defined(__aarch64__)
  return "aarch64";
#else
  return "x86_64";
#endif
}

}  // namespace

bool is_watched_soname(std::string_view n) {
  static constexpr std::array<std::string_view, 27> kFamilies = {
      "libcudart.so",   "libcudnn",       "libnvJitLink.so",  "libcusparse.so",  "libcublas",
      "libcufft.so",    "libcurand.so",   "libcusolver",      "libnccl.so",      "libnvrtc",
      "libcupti.so",    "libcuda.so",     "libnvidia-ml.so",  "libcufile",       "libnvToolsExt",
      "librccl.so",     "libamdhip64.so", "libhsa-runtime64", "libMIOpen.so",    "librocblas.so",
      "libhipblas",     "librocm_smi64",  "libamd_smi",       "libze_loader.so", "libsycl.so",
      "libascendcl.so", "libhccl.so"};
  if (!is_shared_object_name(n)) return false;
  return std::any_of(kFamilies.begin(), kFamilies.end(),
                     [&](std::string_view f) { return starts_with(n, f); });
}

std::vector<std::string> framework_library_dirs(const HostRoot& host,
                                                const std::vector<std::string>& sys_path) {
  static constexpr std::array<std::string_view, 6> kPackages = {"torch/lib",
                                                                "torch_npu/lib",
                                                                "torch_musa/lib",
                                                                "torch_mlu/lib",
                                                                "intel_extension_for_pytorch/lib",
                                                                "habana_frameworks/torch/lib"};
  std::vector<std::string> dirs;
  std::set<std::string_view> found;
  bool nvidia_found = false;
  for (const auto& sp : sys_path) {
    if (sp.empty() || sp.front() != '/' || !host.is_dir(sp)) continue;
    for (auto pkg : kPackages) {  // like `import`, the first sys.path entry with it wins
      if (found.count(pkg)) continue;
      auto d = cat({sp, "/", pkg});
      if (!host.is_dir(d)) continue;
      found.insert(pkg);
      dirs.push_back(d);
    }
    auto nvidia = cat({sp, "/nvidia"});
    if (!nvidia_found && host.is_dir(nvidia)) {
      nvidia_found = true;
      if (auto subs = host.list_dir(nvidia))
        for (const auto& s : *subs)
          for (auto lib : {"lib", "lib64"})
            if (host.is_dir(cat({nvidia, "/", s, "/", lib})))
              dirs.push_back(cat({nvidia, "/", s, "/", lib}));
    }
  }
  return dirs;
}

std::vector<Finding> check_library_shadowing(const DoctorContext& ctx) {
  std::vector<Finding> out;
  LoaderSettings settings;
  settings.arch = arch_of(ctx);
  auto ld_value = ctx.getenv("LD_LIBRARY_PATH").value_or("");
  settings.ld_library_path = split_search_path(ld_value);
  if (std::find(settings.ld_library_path.begin(), settings.ld_library_path.end(), "") !=
      settings.ld_library_path.end())
    out.push_back({"libs.ld-library-path-cwd", Severity::warning,
                   "LD_LIBRARY_PATH has an empty entry",
                   cat({"LD_LIBRARY_PATH=", ld_value,
                        "\nAn empty entry (leading, trailing or doubled ':') makes the loader "
                        "search the current working directory: libraries there shadow the real "
                        "ones, depending on where a job starts."}),
                   "remove the empty entry (no leading, trailing or doubled ':')"});
  if (auto bytes = ctx.host.read_file(doctor_paths::kLdSoCache, kMaxLdCacheBytes)) {
    auto cache = parse_ld_cache(*bytes, doctor_paths::kLdSoCache);
    if (cache) {
      settings.cache = std::move(*cache);
    } else {
      out.push_back({"libs.ld-cache-unreadable", Severity::warning,
                     "the dynamic loader's cache cannot be read", cache.error().message,
                     "sudo ldconfig   # rebuilds /etc/ld.so.cache"});
    }
  }
  Loader loader(ctx.host, std::move(settings));

  // The framework's own libraries first: what they cannot load is an error. Libraries of
  // nvidia/*/lib are loaded only when something needs them (libcufile_rdma needs RDMA
  // libraries many hosts lack), so what they alone cannot load is a warning.
  std::vector<std::pair<std::string, bool>> starts;  // path, is the framework's own
  for (const auto& dir : framework_library_dirs(ctx.host, ctx.python_sys_path)) {
    bool own = dir.find("/nvidia/") == std::string::npos;
    for (auto& so : shared_objects_in(ctx.host, dir)) starts.emplace_back(std::move(so), own);
  }
  std::stable_partition(starts.begin(), starts.end(), [](const auto& s) { return s.second; });

  std::map<std::string, Shadow> shadows;  // by soname + the distinct files
  std::set<std::pair<std::string, std::string>> unresolved_seen;
  auto collect = [&](const LoadGraph& g, bool own) {
    for (const auto& r : g.resolutions) {
      const auto& consumer = g.objects[static_cast<size_t>(r.consumer)];
      if (r.loaded < 0 && r.candidates.empty()) {
        if (!unresolved_seen.insert({consumer.real, r.needed}).second) continue;
        out.push_back({"libs.unresolved", own ? Severity::error : Severity::warning,
                       cat({r.needed, ": needed by ", consumer.path, ", found nowhere"}),
                       cat({consumer.path, " has DT_NEEDED ", r.needed, "; the loader searched: ",
                            join(r.searched, ", "), ". Loading it fails with `", r.needed,
                            ": cannot open shared object file`."}),
                       cat({"install the package that provides ", r.needed,
                            ", or add its directory to LD_LIBRARY_PATH"})});
        continue;
      }
      if (r.candidates.size() < 2 || !is_watched_soname(r.needed)) continue;
      std::vector<Candidate> distinct;
      for (const auto& c : r.candidates) {
        bool dup = std::any_of(distinct.begin(), distinct.end(), [&](const Candidate& d) {
          return !different_libraries(ctx.host, loader, d.real, c.real);
        });
        if (!dup) distinct.push_back(c);
      }
      if (distinct.size() < 2) continue;
      std::string key = r.needed;
      for (const auto& d : distinct) key += "\n" + d.real;
      auto [it, fresh] = shadows.try_emplace(key);
      auto& s = it->second;
      ++s.consumers;
      if (!fresh) continue;
      s.soname = r.needed;
      s.consumer = consumer.path;
      s.distinct = std::move(distinct);
      s.winner = r.loaded >= 0 ? g.objects[static_cast<size_t>(r.loaded)].real : "";
      for (const auto& c : r.candidates)
        if (c.stage != SearchStage::ld_library_path) {
          // Only an RPATH/RUNPATH copy is one the object was built to use.
          if (c.stage == SearchStage::rpath || c.stage == SearchStage::runpath) s.intended = c;
          break;
        }
    }
    for (const auto& p : g.problems) out.push_back(unreadable_library(p));
  };

  std::set<std::string> seen_real;
  size_t n = 0;
  for (const auto& [path, own] : starts) {
    if (n >= kMaxStartObjects) break;
    auto real = ctx.host.resolve(path);
    if (!real || !seen_real.insert(*real).second) continue;
    ++n;
    collect(loader.load(path, is_watched_soname), own);
  }
  // Watched libraries on LD_LIBRARY_PATH, as a program without RPATH/RUNPATH would load them.
  std::vector<std::string> ld_names;
  std::optional<ElfInfo> like;
  for (const auto& entry : loader.settings().ld_library_path) {
    if (entry.empty() || entry.front() != '/') continue;
    for (const auto& so : shared_objects_in(ctx.host, entry)) {
      auto name = so.substr(so.rfind('/') + 1);
      if (!is_watched_soname(name)) continue;
      auto info = loader.elf(so);
      if (!info) continue;
      // Only the soname-named file is what DT_NEEDED asks for (not libcudart.so.12.4.127).
      if (info->soname && *info->soname != name) continue;
      if (!like) like = *info;
      if (std::find(ld_names.begin(), ld_names.end(), name) == ld_names.end())
        ld_names.push_back(name);
    }
  }
  if (like && !ld_names.empty())
    collect(loader.load_needed(ld_names, *like, is_watched_soname), false);
  // What the look-ups above could not read (a FIFO named like a library blocks ld.so's open).
  for (const auto& p : loader.take_unreadable()) out.push_back(unreadable_library(p));

  for (auto& [key, s] : shadows)
    out.push_back(shadow_finding(s, loader.settings().ld_library_path));
  return out;
}

}  // namespace anygpu
