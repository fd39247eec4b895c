// The dynamic loader's search, replayed over files (nothing is loaded): for each DT_NEEDED of an
// object, glibc's ld.so tries, in order (elf/dl-load.c _dl_map_object):
//   1. DT_RPATH of the object and then of each object that loaded it — only while the object
//      itself has no DT_RUNPATH (a loader's RPATH counts only if that loader has no RUNPATH);
//   2. LD_LIBRARY_PATH;
//   3. DT_RUNPATH of the object itself (never of its loaders);
//   4. /etc/ld.so.cache (unless DF_1_NODEFLIB), entries for the object's ELF machine and class;
//   5. the default directories (multiarch first on Debian/Ubuntu, then /lib, /usr/lib).
// $ORIGIN, $LIB and $PLATFORM are expanded; a file of another ELF class or machine is skipped,
// as ld.so skips it. A name already loaded (by soname) is reused instead of searched again.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "doctor/elf.h"
#include "host/host_root.h"
#include "host/ld_cache.h"

namespace anygpu {

enum class SearchStage { path, rpath, ld_library_path, runpath, ld_cache, default_dirs };
std::string_view to_string(SearchStage s);

struct LoaderSettings {
  std::vector<std::string> ld_library_path;  // split, in order
  std::optional<LdCache> cache;              // absent: no (readable) cache
  std::string arch;                          // uname machine: "x86_64", "aarch64"
};

// $LIB and the default directories for a host architecture (Debian multiarch layout).
std::string multiarch_triplet(std::string_view arch);
std::vector<std::string> default_library_dirs(std::string_view arch);
// "a:b::c" -> {"a", "b", "", "c"}: empty entries kept (they mean the current directory).
std::vector<std::string> split_search_path(std::string_view value);

struct Candidate {
  std::string path;  // host path as the loader would open it (dir + "/" + name)
  std::string real;  // canonical host path
  SearchStage stage = SearchStage::default_dirs;
  std::string dir;  // the directory entry that matched (before expansion for RPATH/RUNPATH)
};

struct LoadedObject {
  std::string path;  // as found
  std::string real;  // canonical
  ElfInfo elf;
  int loader = -1;  // index of the object whose DT_NEEDED brought it in; -1 for the start
};

// One DT_NEEDED as the loader resolved it.
struct NeededResolution {
  int consumer = 0;                   // index into LoadGraph::objects
  std::string needed;                 // the DT_NEEDED string
  int loaded = -1;                    // the object that answered (-1: unresolved)
  bool reused = false;                // answered by an object already loaded under that name
  std::vector<Candidate> candidates;  // every loadable file on the consumer's search path, in order
  std::vector<std::string> searched;  // directories tried, for messages
};

struct LoadGraph {
  std::vector<LoadedObject> objects;  // [0] is the start object
  std::vector<NeededResolution> resolutions;
  std::vector<std::string> problems;  // unreadable or malformed files met on the way (once)
};

class Loader {
 public:
  Loader(const HostRoot& host, LoaderSettings settings);

  // The ELF facts of a host path (parsed once).
  Result<ElfInfo> elf(const std::string& host_path);
  // Replays loading `start` (a host path). `all_candidates(needed)` says for which names every
  // candidate is collected (not just the winner).
  template <class Pred>
  LoadGraph load(const std::string& start, Pred all_candidates);
  // Replays loading `needed` from a program without DT_RPATH/DT_RUNPATH of `like`'s machine
  // and class (what `dlopen(name)` from such a program, or its DT_NEEDED, would get).
  template <class Pred>
  LoadGraph load_needed(const std::vector<std::string>& needed, const ElfInfo& like,
                        Pred all_candidates);

  const LoaderSettings& settings() const { return settings_; }
  // Files met but not read since the last graph (each said once): what a caller that looked a
  // file up itself, outside load(), must still report.
  std::vector<std::string> take_unreadable() { return std::exchange(unreadable_, {}); }

 private:
  LoadGraph load_impl(const std::string& start, const ElfInfo* synthetic,
                      const std::function<bool(std::string_view)>& all_candidates);
  std::vector<Candidate> search(const LoadGraph& g, int consumer, std::string_view needed, bool all,
                                std::vector<std::string>& searched);
  std::optional<Candidate> try_file(const std::string& dir, std::string_view name,
                                    const ElfInfo& consumer, SearchStage stage,
                                    const std::string& entry);
  std::vector<std::string> expand(std::string_view path_list, const std::string& origin) const;

  const HostRoot& host_;
  LoaderSettings settings_;
  std::vector<std::string> defaults_;
  std::string lib_, platform_;
  std::map<std::string, Result<ElfInfo>> elf_cache_;        // by canonical path
  std::map<std::string, std::optional<std::string>> real_;  // host path -> canonical (or none)
  std::vector<std::string> unreadable_;  // files met but not read, for the next graph's problems
};

template <class Pred>
LoadGraph Loader::load(const std::string& start, Pred all_candidates) {
  return load_impl(start, nullptr, std::function<bool(std::string_view)>(all_candidates));
}

template <class Pred>
LoadGraph Loader::load_needed(const std::vector<std::string>& needed, const ElfInfo& like,
                              Pred all_candidates) {
  ElfInfo program;
  program.is_64 = like.is_64;
  program.big_endian = like.big_endian;
  program.machine = like.machine;
  program.type = 2;
  program.needed = needed;
  return load_impl("", &program, std::function<bool(std::string_view)>(all_candidates));
}

}  // namespace anygpu
