// anygpu's CDI hooks. A hook runs with the runtime's privileges inside a root the image
// controls, so nothing here follows a link: writes go through the confined writer with no
// link followed beneath the root (host/confined_writer.h), listings open each directory
// O_NOFOLLOW from the root's descriptor, and ldconfig works chrooted (`-r`).
#include "container/cdi_hooks.h"

#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>

#include "container/plain_path.h"
#include "host/confined_writer.h"
#include "util/strings.h"

namespace anygpu {

namespace {

struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

Error sys_error(std::string_view what) {
  Error e = internal_error(cat({what, ": ", std::strerror(errno)}));
  e.sys_errno = errno;
  return e;
}

// Opens the directory `rel` ("dev/dri") beneath `root_fd` for listing, one component at a
// time, never through a symbolic link.
Result<std::shared_ptr<Fd>> open_dir_beneath(int root_fd, std::string_view rel,
                                             const std::string& root) {
  auto cur = std::make_shared<Fd>(::fcntl(root_fd, F_DUPFD_CLOEXEC, 0));
  if (cur->fd < 0) return sys_error(root);
  std::string walked = root;
  for (auto part : split(rel, '/')) {
    if (part.empty()) continue;
    if (part == "." || part == "..") return bad_input(cat({"'", rel, "': no . or .. allowed"}));
    std::string name(part);
    walked += "/" + name;
    int next = ::openat(cur->fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0) {
      if (errno == ELOOP || errno == ENOTDIR)
        return bad_input(cat({walked, ": a link or not a directory; refusing to follow it"}));
      return sys_error(walked);
    }
    cur = std::make_shared<Fd>(next);
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
                                      const std::string& ldconfig) {
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
  // links are mounted, not made.
  std::vector<std::string> args = {"ldconfig", "-X", "-r", root};
  args.insert(args.end(), folders.begin(), folders.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  char* envp[] = {nullptr};
  pid_t pid = 0;
  int rc = ::posix_spawn(&pid, ldconfig.c_str(), nullptr, nullptr, argv.data(), envp);
  if (rc != 0) return internal_error(cat({ldconfig, ": ", std::strerror(rc)}));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return sys_error(ldconfig);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return internal_error(
        cat({ldconfig, " -r ", root, " failed (status ", std::to_string(status), ")"}));
  return true;
}

Result<int> create_dev_char_links(const std::string& root) {
  Fd root_fd(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (root_fd.fd < 0) return sys_error(root);
  auto dev = open_dir_beneath(root_fd.fd, "dev", root);
  if (!dev) return dev.error();
  auto confined = ConfinedDir::open(root, Confinement::no_symlinks);
  if (!confined) return confined.error();
  if (auto made_dir = confined->make_dirs("dev/char"); !made_dir) return made_dir.error();
  int made = 0;
  for (std::string_view sub : {"", "dri"}) {
    std::shared_ptr<Fd> dir = *dev;
    if (!sub.empty()) {
      auto d = open_dir_beneath((*dev)->fd, sub, root + "/dev");
      if (!d) continue;  // no /dev/dri: nothing to link there
      dir = *d;
    }
    int list_fd = ::openat(dir->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (list_fd < 0) continue;
    DIR* listing = ::fdopendir(list_fd);
    if (!listing) {
      ::close(list_fd);
      continue;
    }
    while (auto* e = ::readdir(listing)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      struct stat st {};
      if (::fstatat(dir->fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISCHR(st.st_mode))
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
