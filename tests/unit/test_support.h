// Shared by the unit tests: fixture locations and scratch directories.
#pragma once

#include <string>

#include "host/host_root.h"
#include "model/inventory.h"

namespace anygpu::test {

std::string source_dir();                           // the repository root
std::string fixture_host(const std::string& name);  // tests/hosts/<name>
std::string mock_library(const std::string& name);  // built mock .so, e.g. "mock_nvml_ok.so"
std::string anygpu_binary();                        // build/anygpu

// A fresh directory under $TMPDIR, removed (recursively) when the object dies.
class TempDir {
 public:
  TempDir();
  // Beneath `base` instead of TMPDIR (whose ancestors another user may not be able to enter).
  explicit TempDir(const std::string& base);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& rel) const { return path_ + "/" + rel; }

 private:
  std::string path_;
};

// Copies a fixture tree (symlinks preserved) to `dest`, so a test can damage it.
void copy_tree(const std::string& src, const std::string& dest);
void write_file(const std::string& path, const std::string& content);
void make_symlink(const std::string& target, const std::string& link);

// Discovery of a fixture (or any tree) with vendor libraries off unless asked.
Inventory probe_root(const std::string& root, bool load_libraries = false,
                     int library_timeout_ms = 1000);

// The inventory of a fixture host (libraries off), probed once per test process.
const Inventory& fixture_inventory(const std::string& name);

const Device* find_device(const Inventory& inv, const std::string& bus_id);

// A copy of fixture `fixture` (at tmp/root) with the built mock `mock` installed at `library`,
// a path beneath the root where the registry looks for the vendor's library, and the variable
// `env` naming the file (tmp/answers) the mock reads its answers from; unset when it dies.
struct MockLibraryHost {
  MockLibraryHost(const std::string& fixture, const std::string& mock, const std::string& library,
                  std::string env);
  ~MockLibraryHost();
  MockLibraryHost(const MockLibraryHost&) = delete;
  MockLibraryHost& operator=(const MockLibraryHost&) = delete;
  HostRoot host(int library_timeout_ms = 5000) const;  // libraries allowed

  TempDir tmp;
  std::string root, answers, env;
};

}  // namespace anygpu::test
