// Library shadowing with real shared objects built by gcc: two different libcudart.so.12 on the
// search path, the loader's order (RPATH > LD_LIBRARY_PATH > RUNPATH > ld.so.cache > defaults),
// identical copies that are harmless, and DT_NEEDED names that resolve nowhere.
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "doctor/checks.h"
#include "doctor/doctor.h"
#include "test_support.h"

extern char** environ;

namespace fs = std::filesystem;

namespace anygpu {
namespace {

using test::TempDir;

void gcc(std::vector<std::string> args) {
  args.insert(args.begin(), "gcc");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawnp(&pid, "gcc", nullptr, nullptr, argv.data(), environ), 0)
      << "gcc is required to build the test shared objects";
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "gcc failed";
}

// A shared object `dir/file` with DT_SONAME `soname` and a body that makes each build differ.
void build(const std::string& dir, const std::string& file, const std::string& soname,
           const std::string& body, std::vector<std::string> extra = {}) {
  fs::create_directories(dir);
  auto src = dir + "/" + file + ".c";
  test::write_file(src, body);
  std::vector<std::string> args{"-shared", "-fPIC", "-o", dir + "/" + file, src};
  if (!soname.empty()) args.push_back("-Wl,-soname," + soname);
  args.insert(args.end(), extra.begin(), extra.end());
  gcc(args);
  fs::remove(src);
}

void cudart(const std::string& dir, const std::string& version) {
  build(dir, "libcudart.so.12", "libcudart.so.12",
        "const char* cudart_version(void){return \"" + version + "\";}\n");
}

// A consumer with DT_NEEDED libcudart.so.12, linked against `link_dir`'s copy.
void consumer(const std::string& dir, const std::string& file, const std::string& link_dir,
              std::vector<std::string> path_flags) {
  std::vector<std::string> extra = std::move(path_flags);
  extra.push_back("-L" + link_dir);
  extra.push_back("-l:libcudart.so.12");
  build(dir, file, file,
        "extern const char* cudart_version(void);\nconst char* v(void){return cudart_version();}\n",
        extra);
}

struct Checker {
  HostRoot host{HostOptions{}};
  Inventory inv;
  std::vector<Finding> findings;

  std::vector<Finding> run(const std::map<std::string, std::string>& env,
                           const std::vector<std::string>& sys_path = {}) {
    inv.host.arch = "x86_64";
    DoctorContext ctx(host, inv);
    ctx.env = env;
    ctx.python_sys_path = sys_path;
    findings = check_library_shadowing(ctx);
    return findings;
  }
  std::vector<const Finding*> with_code(const std::string& id) const {
    std::vector<const Finding*> out;
    for (const auto& f : findings)
      if (f.code == id) out.push_back(&f);
    return out;
  }
  std::string dump() const {
    std::string s;
    for (const auto& f : findings)
      s += f.code + " [" + std::string(doctor_severity_word(f.severity)) + "] " + f.message + "\n" +
           f.evidence + "\nfix: " + f.action + "\n";
    return s;
  }
};

TEST(DoctorShadowing, TwoCudartsOnLdLibraryPathAndARunpathConsumer) {
  TempDir t;
  auto a = t / "cuda-12.1/lib64", b = t / "venv/lib";
  cudart(a, "12.1");
  cudart(b, "12.4");
  // The consumer sits next to the 12.4 copy and finds it through RUNPATH $ORIGIN.
  consumer(b, "libtorch_fake.so", b, {"-Wl,--enable-new-dtags", "-Wl,-rpath,$ORIGIN"});
  auto sp = t / "site-packages";
  fs::create_directories(sp + "/torch");
  fs::create_directory_symlink(b, sp + "/torch/lib");
  Checker r;
  r.run({{"LD_LIBRARY_PATH", a + ":" + b}}, {sp});
  auto shadowed = r.with_code("libs.shadowed");
  ASSERT_FALSE(shadowed.empty()) << r.dump();
  const auto& f = *shadowed.front();
  EXPECT_EQ(f.severity, Severity::error) << r.dump();
  EXPECT_NE(f.message.find("libcudart.so.12"), std::string::npos);
  // Both paths, which one wins, and the fix.
  EXPECT_NE(f.evidence.find(a + "/libcudart.so.12 (LD_LIBRARY_PATH " + a + ")  <- loaded"),
            std::string::npos)
      << f.evidence;
  EXPECT_NE(f.evidence.find(b + "/libcudart.so.12"), std::string::npos) << f.evidence;
  EXPECT_NE(f.action.find("export LD_LIBRARY_PATH=" + b), std::string::npos) << f.action;
  EXPECT_TRUE(r.with_code("libs.unresolved").empty()) << r.dump();
}

TEST(DoctorShadowing, WheelLayoutSystemCudaDisplacesTheBundledCopy) {
  TempDir t;
  auto sp = t / "venv/lib/python3.11/site-packages";
  auto bundled = sp + "/nvidia/cuda_runtime/lib", system = t / "usr/local/cuda/lib64";
  cudart(bundled, "12.4.127");
  cudart(system, "12.1.105");
  consumer(sp + "/torch/lib", "libtorch_cuda.so", bundled,
           {"-Wl,--enable-new-dtags", "-Wl,-rpath,$ORIGIN/../../nvidia/cuda_runtime/lib"});
  Checker r;
  r.run({{"LD_LIBRARY_PATH", system}}, {sp});
  auto shadowed = r.with_code("libs.shadowed");
  ASSERT_EQ(shadowed.size(), 1u) << r.dump();
  const auto& f = *shadowed.front();
  EXPECT_EQ(f.severity, Severity::error);
  EXPECT_NE(f.evidence.find(system + "/libcudart.so.12 (LD_LIBRARY_PATH"), std::string::npos)
      << f.evidence;
  EXPECT_NE(f.evidence.find("/torch/lib/../../nvidia/cuda_runtime/lib/libcudart.so.12 (DT_RUNPATH"),
            std::string::npos)
      << f.evidence;
  EXPECT_NE(f.evidence.find("libtorch_cuda.so"), std::string::npos);
  EXPECT_EQ(f.action.rfind("unset LD_LIBRARY_PATH", 0), 0u) << f.action;
  // Without LD_LIBRARY_PATH only the bundled copy is on the path: nothing to report.
  r.run({}, {sp});
  EXPECT_TRUE(r.with_code("libs.shadowed").empty()) << r.dump();
}

TEST(DoctorShadowing, RpathIsSearchedBeforeLdLibraryPath) {
  TempDir t;
  auto mine = t / "app/lib", other = t / "other";
  cudart(mine, "mine");
  cudart(other, "other");
  consumer(t / "app/bin", "libapp.so", mine,
           {"-Wl,--disable-new-dtags", "-Wl,-rpath,$ORIGIN/../lib"});
  auto sp = t / "sp";
  fs::create_directories(sp + "/torch");
  fs::create_directory_symlink(t / "app/bin", sp + "/torch/lib");
  Checker r;
  r.run({{"LD_LIBRARY_PATH", other}}, {sp});
  auto shadowed = r.with_code("libs.shadowed");
  ASSERT_EQ(shadowed.size(), 1u) << r.dump();
  // DT_RPATH wins over LD_LIBRARY_PATH: the intended copy loads, so only a warning.
  EXPECT_EQ(shadowed.front()->severity, Severity::warning) << r.dump();
  EXPECT_NE(shadowed.front()->evidence.find(
                "/torch/lib/../lib/libcudart.so.12 (DT_RPATH $ORIGIN/../lib)  <- loaded"),
            std::string::npos)
      << shadowed.front()->evidence;
}

TEST(DoctorShadowing, IdenticalCopiesAndHardLinksAreNotShadowing) {
  TempDir t;
  auto a = t / "a", b = t / "b", c = t / "c";
  cudart(a, "same");
  fs::create_directories(b);
  fs::create_directories(c);
  fs::copy_file(a + "/libcudart.so.12", b + "/libcudart.so.12");
  ASSERT_EQ(::link((a + "/libcudart.so.12").c_str(), (c + "/libcudart.so.12").c_str()), 0);
  Checker r;
  r.run({{"LD_LIBRARY_PATH", a + ":" + b + ":" + c}});
  EXPECT_TRUE(r.with_code("libs.shadowed").empty()) << r.dump();
  // A different build in a fourth directory is reported, as a warning (order decides).
  auto d = t / "d";
  cudart(d, "different");
  r.run({{"LD_LIBRARY_PATH", a + ":" + b + ":" + d}});
  auto shadowed = r.with_code("libs.shadowed");
  ASSERT_EQ(shadowed.size(), 1u) << r.dump();
  EXPECT_EQ(shadowed.front()->severity, Severity::warning);
  EXPECT_NE(shadowed.front()->evidence.find(d + "/libcudart.so.12"), std::string::npos);
  EXPECT_NE(shadowed.front()->message.find("2 different files"), std::string::npos)
      << shadowed.front()->message;
}

TEST(DoctorShadowing, NeededThatResolvesNowhereIsAnError) {
  TempDir t;
  auto lib = t / "sp/torch/lib";
  cudart(t / "build", "x");
  consumer(lib, "libtorch_cuda.so", t / "build", {});  // no RUNPATH; cudart not installed
  Checker r;
  r.run({}, {t / "sp"});
  auto missing = r.with_code("libs.unresolved");
  ASSERT_EQ(missing.size(), 1u) << r.dump();
  EXPECT_EQ(missing.front()->severity, Severity::error);
  EXPECT_NE(
      missing.front()->message.find("libcudart.so.12: needed by " + lib + "/libtorch_cuda.so"),
      std::string::npos)
      << missing.front()->message;
  EXPECT_NE(missing.front()->evidence.find("/etc/ld.so.cache"), std::string::npos);
}

TEST(DoctorShadowing, BundledLibraryOnlyItsOwnDependencyMissingIsAWarning) {
  TempDir t;
  auto sp = t / "sp";
  // nvidia/cufile/lib/libcufile_rdma.so.1 needs an RDMA library this host lacks; nothing of the
  // framework loads it, so the framework still imports.
  build(t / "build", "libanygpu-test-rdma.so.1", "libanygpu-test-rdma.so.1",
        "int ibv(void){return 1;}\n");
  build(sp + "/nvidia/cufile/lib", "libcufile_rdma.so.1", "libcufile_rdma.so.1",
        "extern int ibv(void);\nint f(void){return ibv();}\n",
        {"-L" + t / "build", "-l:libanygpu-test-rdma.so.1"});
  Checker r;
  r.run({}, {sp});
  auto missing = r.with_code("libs.unresolved");
  ASSERT_EQ(missing.size(), 1u) << r.dump();
  EXPECT_EQ(missing.front()->severity, Severity::warning);
  EXPECT_NE(missing.front()->message.find("libanygpu-test-rdma.so.1"), std::string::npos);
}

TEST(DoctorShadowing, EmptyLdLibraryPathEntryMeansTheWorkingDirectory) {
  Checker r;
  r.run({{"LD_LIBRARY_PATH", "/usr/local/cuda/lib64:"}});
  EXPECT_EQ(r.with_code("libs.ld-library-path-cwd").size(), 1u) << r.dump();
  r.run({{"LD_LIBRARY_PATH", "/usr/local/cuda/lib64"}});
  EXPECT_TRUE(r.with_code("libs.ld-library-path-cwd").empty());
}

TEST(DoctorShadowing, UnderARootTheCacheAndDefaultDirsAreTheRoots) {
  TempDir t;
  auto root = t / "root";
  auto cache_lib = root + "/opt/cuda/lib64", default_lib = root + "/usr/lib/x86_64-linux-gnu";
  cudart(cache_lib, "cache");
  cudart(default_lib, "default");
  consumer(root + "/sp/torch/lib", "libtorch_cuda.so", cache_lib, {});
  // A one-entry glibc-ld.so.cache1.1 naming /opt/cuda/lib64/libcudart.so.12 (a host path).
  std::string name = "libcudart.so.12", path = "/opt/cuda/lib64/libcudart.so.12";
  std::string strings = name + '\0' + path + '\0';
  std::string c(48 + 24, '\0');
  c.replace(0, 20, "glibc-ld.so.cache1.1");
  c[20] = 1;
  c[28] = 2;
  c[48] = 0x03;
  c[49] = 0x03;
  c[52] = 72;
  c[56] = static_cast<char>(72 + name.size() + 1);
  test::write_file(root + "/etc/ld.so.cache", c + strings);
  HostOptions o;
  o.root = root;
  Checker r;
  r.host = HostRoot(o);
  r.run({}, {"/sp"});
  auto shadowed = r.with_code("libs.shadowed");
  ASSERT_EQ(shadowed.size(), 1u) << r.dump();
  const auto& d = shadowed.front()->evidence;
  EXPECT_NE(d.find("1. /opt/cuda/lib64/libcudart.so.12 (ld.so.cache)  <- loaded"),
            std::string::npos)
      << d;
  EXPECT_NE(d.find("2. /usr/lib/x86_64-linux-gnu/libcudart.so.12 (default directories)"),
            std::string::npos)
      << d;
  EXPECT_EQ(d.find(root), std::string::npos) << "host paths, not paths beneath the root";
  // A damaged cache is reported, naming its path, and the search goes on without it.
  test::write_file(root + "/etc/ld.so.cache", "glibc-ld.so.cache1.1\x05");
  r.run({}, {"/sp"});
  auto bad = r.with_code("libs.ld-cache-unreadable");
  ASSERT_EQ(bad.size(), 1u) << r.dump();
  EXPECT_NE(bad.front()->evidence.find("/etc/ld.so.cache: malformed ld.so.cache"),
            std::string::npos)
      << bad.front()->evidence;
}

}  // namespace
}  // namespace anygpu
