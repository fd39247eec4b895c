#include "pyenv/python_env.h"

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "host/spawn.h"
#include "util/pep440.h"
#include "util/regular_file.h"
#include "util/strings.h"

namespace fs = std::filesystem;

namespace anygpu {

namespace {

constexpr size_t kMaxOutput = size_t{1} << 20;
constexpr size_t kMaxMetadataHead = size_t{256} << 10;

// Package metadata is optional: anything but a readable regular file (a FIFO planted in
// site-packages included) is simply absent.
std::optional<std::string> read_head(const fs::path& p, size_t max_bytes) {
  auto text = read_regular_file(p.string(), max_bytes, "package metadata");
  if (!text) return std::nullopt;
  return std::move(*text);
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// A Python literal on the right of '=': a quoted string, or None (absent).
std::optional<std::string> python_literal(std::string_view v) {
  v = trim(v);
  if (auto hash = v.find('#');
      hash != std::string_view::npos && (v.empty() || (v[0] != '\'' && v[0] != '"')))
    v = trim(v.substr(0, hash));
  if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"')) {
    char q = v.front();
    auto end = v.find(q, 1);
    if (end == std::string_view::npos) return std::nullopt;
    return std::string(v.substr(1, end - 1));
  }
  return std::nullopt;  // None, True, False, anything else
}

}  // namespace

std::string TorchBuild::kind() const {
  if (cuda) return "cuda";
  if (hip) return "rocm";
  if (xpu) return "xpu";
  auto plus = version.find('+');
  if (plus != std::string::npos) {
    auto local = to_lower(std::string_view(version).substr(plus + 1));
    if (starts_with(local, "cu") && local.size() > 2 &&
        std::isdigit(static_cast<unsigned char>(local[2])))
      return "cuda";
    if (starts_with(local, "rocm")) return "rocm";
    if (starts_with(local, "xpu")) return "xpu";
  }
  return "cpu";
}

const InstalledDist* PythonEnv::dist(std::string_view normalised_name) const {
  for (const auto& d : dists)
    if (d.name == normalised_name) return &d;
  return nullptr;
}

TorchBuild parse_torch_version_py(std::string_view text) {
  TorchBuild b;
  std::map<std::string, std::optional<std::string>> values;
  for (auto line : split_lines(text)) {
    auto t = trim(line);
    if (t.empty() || t.front() == '#') continue;
    auto eq = t.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    if (eq + 1 < t.size() && t[eq + 1] == '=') continue;
    auto lhs = trim(t.substr(0, eq));
    lhs = trim(lhs.substr(0, lhs.find(':')));  // `cuda: Optional[str] = '12.1'`
    values[std::string(lhs)] = python_literal(t.substr(eq + 1));
  }
  auto get = [&](const char* k) -> std::optional<std::string> {
    auto it = values.find(k);
    if (it == values.end() || !it->second || it->second->empty()) return std::nullopt;
    return it->second;
  };
  b.version = get("__version__").value_or("");
  b.cuda = get("cuda");
  b.hip = get("hip");
  b.xpu = get("xpu");
  return b;
}

std::optional<InstalledDist> parse_metadata(std::string_view text) {
  InstalledDist d;
  for (auto line : split_lines(text)) {
    if (trim(line).empty()) break;  // end of the header block
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    auto key = to_lower(trim(line.substr(0, colon)));
    auto value = std::string(trim(line.substr(colon + 1)));
    if (key == "name" && d.name.empty()) d.name = normalize_dist_name(value);
    if (key == "version" && d.version.empty()) d.version = value;
  }
  // "pytorch" normalises to torch for contracts; a distribution is what it says it is.
  if (d.name.empty() || d.version.empty()) return std::nullopt;
  return d;
}

Result<std::vector<std::string>> query_sys_path(const std::string& python,
                                                std::chrono::milliseconds timeout) {
  if (python.empty()) return bad_input("--python: empty interpreter name");
  SpawnSpec spec;
  spec.argv = {python, "-c", "import sys; print(\"\\n\".join(sys.path))"};
  spec.fds = {{1, ChildFd::capture()}};  // stdin and stderr: /dev/null
  // Asked and waited for by this thread: nothing of it outlives anygpu, even killed.
  spec.parent_death_signal = SIGKILL;
  auto run = run_to_completion(spec, timeout, kMaxOutput);
  if (!run)
    return bad_input(cat({"--python ", python, ": cannot run (",
                          std::strerror(run.error().sys_errno ? run.error().sys_errno : EINVAL),
                          "); pass the interpreter of the experiment's environment"}));
  // A wrapper script's python, and anything either started, went with it (host/spawn.h).
  if (run->timed_out)
    return internal_error(
        cat({"--python ", python, ": no answer within ", std::to_string(timeout.count()), " ms"}));
  const auto& exit = run->exit;
  if (exit.kind == ExitStatus::Kind::exited && exit.value == 127)
    return bad_input(cat({"--python ", python, ": not found"}));
  if (!exit.success())
    return internal_error(
        cat({"--python ", python, ": ", describe(exit), " when asked for sys.path"}));
  std::vector<std::string> paths;
  for (auto line : split_lines(run->output[1])) {
    auto t = std::string(line);
    if (!t.empty() && t.back() == '\r') t.pop_back();
    paths.push_back(t);
  }
  return paths;
}

PythonEnv read_site_packages(const std::vector<std::string>& sys_path) {
  PythonEnv env;
  env.sys_path = sys_path;
  std::set<std::string> seen;
  std::error_code ec;
  for (const auto& entry : sys_path) {
    if (entry.empty()) continue;  // the current directory: not an installation
    fs::path dir(entry);
    if (!fs::is_directory(dir, ec)) continue;  // zip files, missing entries
    std::vector<fs::path> items;
    for (auto it = fs::directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::directory_iterator(); it.increment(ec))
      items.push_back(it->path());
    std::sort(items.begin(), items.end());
    for (const auto& p : items) {
      auto fname = p.filename().string();
      std::optional<std::string> text;
      if (ends_with(fname, ".dist-info")) {
        text = read_head(p / "METADATA", kMaxMetadataHead);
      } else if (ends_with(fname, ".egg-info")) {
        text = fs::is_directory(p, ec) ? read_head(p / "PKG-INFO", kMaxMetadataHead)
                                       : read_head(p, kMaxMetadataHead);
      }
      if (!text) continue;
      auto d = parse_metadata(*text);
      if (!d || !seen.insert(d->name).second) continue;
      d->path = p.string();
      env.dists.push_back(std::move(*d));
    }
    if (!env.torch && (fs::exists(dir / "torch" / "__init__.py", ec) ||
                       fs::exists(dir / "torch" / "version.py", ec))) {
      auto torch_dir = dir / "torch";
      TorchBuild b;
      if (auto text = read_head(torch_dir / "version.py", 64 << 10))
        b = parse_torch_version_py(*text);
      b.dir = torch_dir.string();
      b.has_distributed = fs::exists(torch_dir / "distributed" / "__init__.py", ec);
      std::vector<fs::path> lib_dirs{torch_dir / "lib", dir / "nvidia" / "nccl" / "lib"};
      for (const auto& ld : lib_dirs) {
        for (auto it = fs::directory_iterator(ld, ec); !ec && it != fs::directory_iterator();
             it.increment(ec)) {
          auto n = it->path().filename().string();
          if ((starts_with(n, "libnccl") || starts_with(n, "librccl") ||
               starts_with(n, "libccl")) &&
              n.find(".so") != std::string::npos)
            b.collective_libs.push_back(it->path().string());
        }
        ec.clear();
      }
      std::sort(b.collective_libs.begin(), b.collective_libs.end());
      env.torch = std::move(b);
    }
  }
  return env;
}

Result<PythonEnv> read_python_env(const std::string& python, std::chrono::milliseconds timeout) {
  auto paths = query_sys_path(python, timeout);
  if (!paths) return paths.error();
  auto env = read_site_packages(*paths);
  env.python = python;
  return env;
}

}  // namespace anygpu
