#include "test_support.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include "probe/probe.h"

namespace fs = std::filesystem;

namespace anygpu::test {

namespace {
// This test binary links the probe code statically, so no `anygpu` sits beside it: name the
// library worker the way an embedder would (src/worker/locate.h).
const bool kWorkerNamed = [] {
  ::setenv("ANYGPU_WORKER", ANYGPU_BINARY_DIR "/anygpu", 0);
  return true;
}();
}  // namespace

std::string source_dir() {
  return ANYGPU_SOURCE_DIR;
}
std::string fixture_host(const std::string& name) {
  return source_dir() + "/tests/hosts/" + name;
}
std::string mock_library(const std::string& name) {
  return std::string(ANYGPU_MOCK_DIR) + "/" + name;
}
std::string anygpu_binary() {
  return std::string(ANYGPU_BINARY_DIR) + "/anygpu";
}

TempDir::TempDir() : TempDir(fs::temp_directory_path().string()) {}

TempDir::TempDir(const std::string& base) {
  std::string tmpl = (fs::path(base) / "anygpu-test-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed beneath " + base);
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  // Restore permissions a test may have removed, so everything can be deleted.
  for (auto it = fs::recursive_directory_iterator(
           path_, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec))
    if (!it->is_symlink(ec))
      fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
  fs::remove_all(path_, ec);
}

void copy_tree(const std::string& src, const std::string& dest) {
  fs::copy(src, dest, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
}

void write_file(const std::string& path, const std::string& content) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << content;
  if (!f) throw std::runtime_error("cannot write " + path);
}

void make_symlink(const std::string& target, const std::string& link) {
  fs::create_directories(fs::path(link).parent_path());
  std::error_code ec;
  fs::remove(link, ec);
  fs::create_symlink(target, link);
}

Inventory probe_root(const std::string& root, bool load_libraries, int library_timeout_ms) {
  HostOptions o;
  o.root = root;
  o.load_libraries = load_libraries;
  o.library_timeout = std::chrono::milliseconds(library_timeout_ms);
  HostRoot host(o);
  return probe(host);
}

const Inventory& fixture_inventory(const std::string& name) {
  static std::map<std::string, Inventory> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, probe_root(fixture_host(name))).first;
  return it->second;
}

const Device* find_device(const Inventory& inv, const std::string& bus_id) {
  for (const auto& d : inv.devices)
    if (d.pci.address.str() == bus_id) return &d;
  return nullptr;
}

MockLibraryHost::MockLibraryHost(const std::string& fixture, const std::string& mock,
                                 const std::string& library, std::string env_name)
    : root(tmp / "root"), answers(tmp / "answers"), env(std::move(env_name)) {
  copy_tree(fixture_host(fixture), root);
  auto src = mock_library(mock);
  if (!fs::is_regular_file(src)) throw std::runtime_error(src + " was not built");
  auto dest = fs::path(root) / library;
  fs::create_directories(dest.parent_path());
  fs::copy_file(src, dest, fs::copy_options::overwrite_existing);
  ::setenv(env.c_str(), answers.c_str(), 1);
}

MockLibraryHost::~MockLibraryHost() {
  ::unsetenv(env.c_str());
}

HostRoot MockLibraryHost::host(int library_timeout_ms) const {
  HostOptions o;
  o.root = root;
  o.library_timeout = std::chrono::milliseconds(library_timeout_ms);
  return HostRoot(o);
}

}  // namespace anygpu::test
