#include "host/host_root.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <chrono>

#include "test_support.h"

namespace anygpu {

namespace {
HostRoot root_at(const std::string& dir, bool libs = true) {
  HostOptions o;
  o.root = dir;
  o.load_libraries = libs;
  return HostRoot(o);
}
}  // namespace

TEST(HostRoot, ReadsBeneathTheRoot) {
  test::TempDir t;
  test::write_file(t / "sys/x/value", "42\nsecond line\n");
  auto host = root_at(t.path());
  EXPECT_FALSE(host.is_real_root());
  EXPECT_EQ(*host.read_value("/sys/x/value"), "42");
  EXPECT_EQ(host.outside("/sys/x"), t.path() + "/sys/x");
  auto missing = host.read_value("/sys/x/none");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("/sys/x/none"), std::string::npos);
}

TEST(HostRoot, RejectsWhatIsNotAValue) {
  test::TempDir t;
  test::write_file(t / "empty", "");
  test::write_file(t / "binary", std::string("\x01\x02\x03", 3));
  test::write_file(t / "big", std::string(2 << 20, 'a'));
  ::mkdir((t / "dir").c_str(), 0755);
  ::mkfifo((t / "fifo").c_str(), 0644);
  auto host = root_at(t.path());
  EXPECT_FALSE(host.read_value("/empty"));
  EXPECT_FALSE(host.read_value("/binary"));
  EXPECT_FALSE(host.read_file("/big"));
  EXPECT_FALSE(host.read_file("/dir"));
  auto start = std::chrono::steady_clock::now();
  auto fifo = host.read_file("/fifo");  // must neither block nor read
  EXPECT_FALSE(fifo);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST(HostRoot, ListsSortedAndResolvesLinksInsideTheRoot) {
  test::TempDir t;
  test::write_file(t / "sys/devices/pci0000:00/0000:00:02.0/class", "0x030000\n");
  test::make_symlink("../../../devices/pci0000:00/0000:00:02.0",
                     t / "sys/bus/pci/devices/0000:00:02.0");
  test::make_symlink("/etc/passwd", t / "sys/escape");
  test::write_file(t / "d/b", "");
  test::write_file(t / "d/a", "");
  auto host = root_at(t.path());
  EXPECT_EQ(*host.list_dir("/d"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(*host.resolve("/sys/bus/pci/devices/0000:00:02.0"),
            "/sys/devices/pci0000:00/0000:00:02.0");
  EXPECT_EQ(*host.read_link("/sys/bus/pci/devices/0000:00:02.0"),
            "../../../devices/pci0000:00/0000:00:02.0");
  // An absolute link is not followed out of the root.
  auto escaped = host.resolve("/sys/escape");
  EXPECT_FALSE(escaped);
}

TEST(HostRoot, LibrariesComeOnlyFromBeneathTheRoot) {
  test::TempDir t;
  auto host = root_at(t.path());
  // libc exists on every machine, but not beneath this empty root.
  std::string_view libc[] = {"libc.so.6"};
  auto lib = host.open_library(libc, {});
  ASSERT_FALSE(lib);
  EXPECT_NE(lib.error().message.find("not found"), std::string::npos) << lib.error().message;
  EXPECT_FALSE(host.find_library(libc, {}));

  auto real = root_at("/");
  EXPECT_TRUE(real.is_real_root());
  EXPECT_TRUE(real.open_library(libc, {}));
  auto disabled = root_at("/", false);
  EXPECT_FALSE(disabled.open_library(libc, {}));
}

TEST(HostRoot, VendorDirectoriesAreSearchedUnderTheRoot) {
  test::TempDir t;
  test::write_file(t / "opt/rocm/lib/librocm_smi64.so.6", "not an ELF file");
  auto host = root_at(t.path());
  std::string_view names[] = {"librocm_smi64.so.6"};
  std::string_view dirs[] = {"/opt/rocm/lib"};
  EXPECT_EQ(host.find_library(names, dirs), "/opt/rocm/lib/librocm_smi64.so.6");
  auto lib = host.open_library(names, dirs);
  ASSERT_FALSE(lib);  // found, but not loadable: the loader's message says why
  EXPECT_NE(lib.error().message.find("librocm_smi64.so.6"), std::string::npos)
      << lib.error().message;
}

TEST(HostOptions, Environment) {
  ::setenv("ANYGPU_ROOT", "/tmp", 1);
  ::setenv("ANYGPU_NO_LIBS", "1", 1);
  ::setenv("ANYGPU_LIB_TIMEOUT_MS", "250", 1);
  auto o = HostOptions::from_environment();
  ASSERT_TRUE(o);
  EXPECT_EQ(o->root, "/tmp");
  EXPECT_FALSE(o->load_libraries);
  EXPECT_EQ(o->library_timeout.count(), 250);
  ::setenv("ANYGPU_LIB_TIMEOUT_MS", "soon", 1);
  EXPECT_FALSE(HostOptions::from_environment());
  ::setenv("ANYGPU_LIB_TIMEOUT_MS", "250", 1);
  ::setenv("ANYGPU_NO_LIBS", "perhaps", 1);
  EXPECT_FALSE(HostOptions::from_environment());
  ::unsetenv("ANYGPU_ROOT");
  ::unsetenv("ANYGPU_NO_LIBS");
  ::unsetenv("ANYGPU_LIB_TIMEOUT_MS");
}

}  // namespace anygpu
