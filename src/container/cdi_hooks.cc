// anygpu's CDI hooks. A hook runs with the runtime's privileges inside a root the image
// controls, so nothing here follows a link: writes go through the confined writer with no
// link followed beneath the root (host/confined_writer.h), listings open each directory
// O_NOFOLLOW from the root's descriptor, and ldconfig works chrooted (`-r`).
#include "container/cdi_hooks.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "container/plain_path.h"
#include "host/confined_writer.h"
#include "host/spawn.h"
#include "util/strings.h"
#include "util/unique_fd.h"

namespace anygpu {

namespace {

// What ldconfig printed on stderr, kept for the error message.
constexpr size_t kLdconfigMessageBytes = 4096;

Error sys_error(std::string_view what) {
  Error e = internal_error(cat({what, ": ", std::strerror(errno)}));
  e.sys_errno = errno;
  return e;
}

// Opens the directory `rel` ("dev/dri") beneath `root_fd` for listing, one component at a
// time, never through a symbolic link.
Result<UniqueFd> open_dir_beneath(int root_fd, std::string_view rel, const std::string& root) {
  UniqueFd cur(::fcntl(root_fd, F_DUPFD_CLOEXEC, 0));
  if (!cur) return sys_error(root);
  std::string walked = root;
  for (auto part : split(rel, '/')) {
    if (part.empty()) continue;
    if (part == "." || part == "..") return bad_input(cat({"'", rel, "': no . or .. allowed"}));
    std::string name(part);
    walked += "/" + name;
    UniqueFd next(
        ::openat(cur.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next) {
      if (errno == ELOOP || errno == ENOTDIR)
        return bad_input(cat({walked, ": a link or not a directory; refusing to follow it"}));
      return sys_error(walked);
    }
    cur = std::move(next);
  }
  return cur;
}

}  // namespace

Result<std::string> oci_container_root(
    std::string_view state_json,
    const std::function<Result<std::string>(const std::string&)>& read_config) {
  auto state = nlohmann::json::parse(state_json, nullptr, false);
  if (state.is_discarded() || !state.is_object())
    return bad_input("container state on stdin: not a JSON object");
  auto bundle = state.find("bundle");
  if (bundle == state.end() || !bundle->is_string() ||
      !is_plain_absolute_path(bundle->get<std::string>()))
    return bad_input("container state on stdin: no absolute \"bundle\" path");
  std::string dir = bundle->get<std::string>();
  std::string config_path = dir + "/config.json";
  auto text = read_config(config_path);
  if (!text) return text.error();
  auto config = nlohmann::json::parse(*text, nullptr, false);
  if (config.is_discarded() || !config.is_object())
    return bad_input(cat({config_path, ": not a JSON object"}));
  auto root = config.find("root");
  if (root == config.end() || !root->is_object() || !root->contains("path") ||
      !(*root)["path"].is_string() || (*root)["path"].get<std::string>().empty())
    return bad_input(cat({config_path, ": no root.path"}));
  std::string path = (*root)["path"].get<std::string>();
  if (path[0] != '/') path = dir + "/" + path;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  if (!is_plain_absolute_path(path))
    return bad_input(cat({config_path, ": root.path '", path, "'"}));
  return path;
}

std::optional<std::string> find_ldconfig() {
  for (const char* p : {"/sbin/ldconfig", "/usr/sbin/ldconfig", "/sbin/ldconfig.real"})
    if (::access(p, X_OK) == 0) return std::string(p);
  return std::nullopt;
}

Result<bool> update_container_ldcache(const std::string& root,
                                      const std::vector<std::string>& folders,
                                      const std::string& ldconfig,
                                      std::chrono::milliseconds timeout) {
  for (const auto& f : folders)
    if (!is_plain_absolute_path(f))
      return bad_input(cat({"--folder '", f, "': not a plain absolute path"}));
  // The image owns every directory beneath its root: no link there is followed.
  auto dir = ConfinedDir::open(root, Confinement::no_symlinks);
  if (!dir) return dir.error();
  std::string content =
      "# The host driver's library folders, mounted by the CDI spec (anygpu cdi hook).\n";
  for (const auto& f : folders) content += f + "\n";
  auto written = dir->write_file(kLdConfFile, content);
  if (!written) return written.error();

  // ldconfig chroots into the root: links inside resolve there, and the folders are given
  // as well because an image's /etc/ld.so.conf need not include ld.so.conf.d. -X: the soname
  // links are mounted, not made. No environment; what it says on stderr goes into the error.
  SpawnSpec spec;
  spec.program = ldconfig;
  spec.argv = {"ldconfig", "-X", "-r", root};
  spec.argv.insert(spec.argv.end(), folders.begin(), folders.end());
  spec.env = std::vector<std::string>{};
  spec.fds = {{2, ChildFd::capture()}};
  // The runtime may kill the hook at its own timeout: ldconfig goes with it.
  spec.parent_death_signal = SIGKILL;
  auto run = run_to_completion(spec, timeout, kLdconfigMessageBytes);
  if (!run) return internal_error(run.error().message);
  std::string command = cat({ldconfig, " -r ", root});
  if (run->timed_out)
    return internal_error(
        cat({command, ": did not finish within ", std::to_string(timeout.count()), " ms; killed"}));
  if (!run->exit.success()) {
    auto said = trim(first_line(run->output[2]));
    return internal_error(cat({command, " failed (", describe(run->exit), ")",
                               said.empty() ? "" : ": ", escape_control(said)}));
  }
  return true;
}

Result<int> create_dev_char_links(const std::string& root) {
  UniqueFd root_fd(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root_fd) return sys_error(root);
  auto dev = open_dir_beneath(root_fd.get(), "dev", root);
  if (!dev) return dev.error();
  auto confined = ConfinedDir::open(root, Confinement::no_symlinks);
  if (!confined) return confined.error();
  if (auto made_dir = confined->make_dirs("dev/char"); !made_dir) return made_dir.error();
  int made = 0;
  for (std::string_view sub : {"", "dri"}) {
    UniqueFd sub_fd;
    if (!sub.empty()) {
      auto d = open_dir_beneath(dev->get(), sub, root + "/dev");
      if (!d) continue;  // no /dev/dri: nothing to link there
      sub_fd = std::move(*d);
    }
    int dir = sub.empty() ? dev->get() : sub_fd.get();
    UniqueFd list_fd(::openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!list_fd) continue;
    DIR* listing = ::fdopendir(list_fd.get());
    if (!listing) continue;
    list_fd.release();  // the DIR owns it now
    while (auto* e = ::readdir(listing)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      struct stat st {};
      if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISCHR(st.st_mode))
        continue;
      auto key = cat({std::to_string(major(st.st_rdev)), ":", std::to_string(minor(st.st_rdev))});
      auto target = sub.empty() ? cat({"../", name}) : cat({"../", sub, "/", name});
      auto rel = cat({"dev/char/", key});
      if (confined->exists(rel)) continue;  // udev's or an earlier run's link stays
      auto link = confined->make_symlink(rel, target);
      if (!link) return link.error();
      ++made;
    }
    ::closedir(listing);
  }
  return made;
}

}  // namespace anygpu
