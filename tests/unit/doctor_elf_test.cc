// The ELF reader: real shared objects built by gcc, hand-built ELF32/ELF64 in both byte orders,
// and malformed files (truncated, garbage, huge offsets and counts, wrong class) that must end
// in an error naming the file, never a crash.
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>

#include <fstream>
#include <sstream>

#include "doctor/elf.h"
#include "test_support.h"

extern char** environ;

namespace anygpu {
namespace {

using test::TempDir;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs gcc without a shell; the test fails when gcc is missing.
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

std::string build_so(const TempDir& dir, const std::string& name, const std::string& code,
                     std::vector<std::string> flags) {
  auto src = dir / (name + ".c");
  test::write_file(src, code);
  auto out = dir / name;
  std::vector<std::string> args{"-shared", "-fPIC", "-o", out, src};
  args.insert(args.end(), flags.begin(), flags.end());
  gcc(args);
  return out;
}

// A minimal ELF image: one PT_LOAD mapping the whole file, a PT_DYNAMIC and a string table.
struct ElfSpec {
  bool is64 = true;
  bool big = false;
  uint16_t machine = 62;
  std::string soname;
  std::vector<std::string> needed;
  std::string runpath, rpath;
};

std::string make_elf(const ElfSpec& s) {
  const size_t eh = s.is64 ? 64 : 52, ph = s.is64 ? 56 : 32, dyn = s.is64 ? 16 : 8;
  const uint64_t base = 0x400000;
  std::string strtab(1, '\0');
  auto add = [&](const std::string& v) {
    auto at = strtab.size();
    strtab += v;
    strtab += '\0';
    return at;
  };
  std::vector<std::pair<int64_t, uint64_t>> dyns;
  for (const auto& n : s.needed) dyns.push_back({1, add(n)});
  if (!s.soname.empty()) dyns.push_back({14, add(s.soname)});
  if (!s.rpath.empty()) dyns.push_back({15, add(s.rpath)});
  if (!s.runpath.empty()) dyns.push_back({29, add(s.runpath)});
  size_t str_off = eh + 2 * ph, dyn_off = (str_off + strtab.size() + 7) / 8 * 8;
  dyns.push_back({5, base + str_off});
  dyns.push_back({10, strtab.size()});
  dyns.push_back({0, 0});
  size_t total = dyn_off + dyns.size() * dyn;
  std::string b(total, '\0');
  auto put = [&](size_t at, uint64_t v, size_t width) {
    for (size_t i = 0; i < width; ++i)
      b[at + (s.big ? width - 1 - i : i)] = static_cast<char>((v >> (8 * i)) & 0xff);
  };
  b.replace(0, 4,
            "\x7f"
            "ELF");
  b[4] = s.is64 ? 2 : 1;
  b[5] = s.big ? 2 : 1;
  b[6] = 1;
  put(16, 3, 2);  // ET_DYN
  put(18, s.machine, 2);
  put(20, 1, 4);
  if (s.is64) {
    put(32, eh, 8);
    put(52, eh, 2);
    put(54, ph, 2);
    put(56, 2, 2);
  } else {
    put(28, eh, 4);
    put(40, eh, 2);
    put(42, ph, 2);
    put(44, 2, 2);
  }
  auto phdr = [&](size_t i, uint32_t type, uint64_t off, uint64_t filesz) {
    size_t at = eh + i * ph;
    put(at, type, 4);
    if (s.is64) {
      put(at + 8, off, 8);
      put(at + 16, base + off, 8);
      put(at + 24, base + off, 8);
      put(at + 32, filesz, 8);
      put(at + 40, filesz, 8);
      put(at + 48, 8, 8);
    } else {
      put(at + 4, off, 4);
      put(at + 8, base + off, 4);
      put(at + 12, base + off, 4);
      put(at + 16, filesz, 4);
      put(at + 20, filesz, 4);
      put(at + 28, 4, 4);
    }
  };
  phdr(0, 1, 0, total);
  phdr(1, 2, dyn_off, dyns.size() * dyn);
  b.replace(str_off, strtab.size(), strtab);
  for (size_t i = 0; i < dyns.size(); ++i) {
    put(dyn_off + i * dyn, static_cast<uint64_t>(dyns[i].first), dyn / 2);
    put(dyn_off + i * dyn + dyn / 2, dyns[i].second, dyn / 2);
  }
  return b;
}

TEST(DoctorElf, RealSharedObjectFromGcc) {
  TempDir dir;
  auto dep = build_so(dir, "libdep.so.3", "int dep(void){return 3;}", {"-Wl,-soname,libdep.so.3"});
  auto so = build_so(dir, "libcudart.so.12", "extern int dep(void); int f(void){return dep();}",
                     {"-Wl,-soname,libcudart.so.12", "-Wl,--enable-new-dtags",
                      "-Wl,-rpath,$ORIGIN/../lib", "-L" + dir.path(), "-l:libdep.so.3"});
  auto info = read_elf_file(so);
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_TRUE(info->is_64);
  EXPECT_EQ(info->type, 3);
  ASSERT_TRUE(info->soname);
  EXPECT_EQ(*info->soname, "libcudart.so.12");
  EXPECT_NE(std::find(info->needed.begin(), info->needed.end(), "libdep.so.3"), info->needed.end());
  ASSERT_TRUE(info->runpath);
  EXPECT_EQ(*info->runpath, "$ORIGIN/../lib");
  EXPECT_FALSE(info->rpath);
  EXPECT_FALSE(info->build_id.empty()) << "gcc on Debian links with --build-id";
}

TEST(DoctorElf, RpathWithOldDtags) {
  TempDir dir;
  auto so = build_so(dir, "libold.so", "int f(void){return 1;}",
                     {"-Wl,--disable-new-dtags", "-Wl,-rpath,/opt/x/lib:$ORIGIN"});
  auto info = read_elf_file(so);
  ASSERT_TRUE(info.ok()) << info.error().message;
  ASSERT_TRUE(info->rpath);
  EXPECT_EQ(*info->rpath, "/opt/x/lib:$ORIGIN");
  EXPECT_FALSE(info->runpath);
  EXPECT_FALSE(info->soname);
}

TEST(DoctorElf, AllClassesAndByteOrders) {
  for (bool is64 : {false, true})
    for (bool big : {false, true}) {
      ElfSpec s{is64,
                big,
                static_cast<uint16_t>(big ? 22 : 183),
                "libx.so.1",
                {"liba.so.1", "libb.so.2"},
                "$ORIGIN",
                ""};
      auto info = parse_elf_bytes(make_elf(s), "mem");
      ASSERT_TRUE(info.ok()) << info.error().message << " is64=" << is64 << " big=" << big;
      EXPECT_EQ(info->is_64, is64);
      EXPECT_EQ(info->big_endian, big);
      EXPECT_EQ(info->machine, s.machine);
      EXPECT_EQ(info->soname.value_or(""), "libx.so.1");
      EXPECT_EQ(info->needed, (std::vector<std::string>{"liba.so.1", "libb.so.2"}));
      EXPECT_EQ(info->runpath.value_or(""), "$ORIGIN");
    }
}

TEST(DoctorElf, TruncatedAtEveryLengthIsAnErrorNamingTheFile) {
  TempDir dir;
  auto so = build_so(dir, "libt.so.1", "int f(void){return 1;}", {"-Wl,-soname,libt.so.1"});
  auto bytes = slurp(so);
  auto full = parse_elf_bytes(bytes, "libt.so.1");
  ASSERT_TRUE(full.ok());
  // The dynamic data sits in the first pages: every cut before its end must fail cleanly.
  size_t failures = 0;
  for (size_t n = 0; n < std::min<size_t>(bytes.size(), 16384); ++n) {
    auto r = parse_elf_bytes(std::string_view(bytes).substr(0, n), "cut.so");
    if (r.ok()) continue;
    ++failures;
    EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
    EXPECT_NE(r.error().message.find("cut.so"), std::string::npos) << r.error().message;
  }
  EXPECT_GT(failures, 64u);
  // And on disk, through pread.
  test::write_file(dir / "short.so", bytes.substr(0, 100));
  auto r = read_elf_file(dir / "short.so");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find(dir / "short.so"), std::string::npos) << r.error().message;
}

TEST(DoctorElf, GarbageAndWrongClass) {
  auto r = parse_elf_bytes(std::string(4096, 'A'), "junk.so");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("junk.so: not a valid ELF object: bad magic"), std::string::npos)
      << r.error().message;
  auto b = make_elf({});
  b[4] = 3;  // no such class
  r = parse_elf_bytes(b, "class.so");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("unknown class 3"), std::string::npos) << r.error().message;
  // A 64-bit image labelled 32-bit: its fields read as nonsense, never as dynamic data.
  b = make_elf({true, false, 62, "libm.so", {"liba.so"}, "", ""});
  b[4] = 1;
  r = parse_elf_bytes(b, "mislabelled.so");
  EXPECT_TRUE(!r.ok() || (!r->has_dynamic && r->needed.empty()));
  r = read_elf_file("/nonexistent/libnothing.so");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("/nonexistent/libnothing.so"), std::string::npos);
}

TEST(DoctorElf, HugeOffsetsAndCounts) {
  auto put64 = [](std::string& b, size_t at, uint64_t v) {
    for (int i = 0; i < 8; ++i) b[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
  };
  auto b = make_elf({true, false, 62, "libh.so", {"liba.so"}, "", ""});
  auto bad_phoff = b;
  put64(bad_phoff, 32, UINT64_MAX - 8);
  EXPECT_FALSE(parse_elf_bytes(bad_phoff, "phoff.so").ok());
  auto bad_phnum = b;
  bad_phnum[56] = '\xff';
  bad_phnum[57] = '\xfe';
  auto r = parse_elf_bytes(bad_phnum, "phnum.so");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("e_phnum"), std::string::npos) << r.error().message;
  // PT_DYNAMIC with an offset and size far beyond the file.
  auto bad_dyn = b;
  put64(bad_dyn, 64 + 56 + 8, uint64_t{1} << 62);
  EXPECT_FALSE(parse_elf_bytes(bad_dyn, "dyn.so").ok());
  auto big_dyn = b;
  put64(big_dyn, 64 + 56 + 32, uint64_t{1} << 40);
  r = parse_elf_bytes(big_dyn, "bigdyn.so");
  ASSERT_FALSE(r.ok());
  // DT_STRSZ past the end of the file, and a DT_NEEDED index past DT_STRSZ.
  ElfSpec s{true, false, 62, "", {"liba.so"}, "", ""};
  auto img = make_elf(s);
  size_t dyn_off = (64 + 2 * 56 + 1 + 8 + 7) / 8 * 8;  // strtab "\0liba.so\0"
  auto bad_strsz = img;
  put64(bad_strsz, dyn_off + 2 * 16 + 8, uint64_t{1} << 50);
  r = parse_elf_bytes(bad_strsz, "strsz.so");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("overruns the file"), std::string::npos) << r.error().message;
  auto bad_index = img;
  put64(bad_index, dyn_off + 8, 1000);
  r = parse_elf_bytes(bad_index, "index.so");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("DT_NEEDED"), std::string::npos) << r.error().message;
  // DT_STRTAB pointing at no PT_LOAD.
  auto bad_strtab = img;
  put64(bad_strtab, dyn_off + 16 + 8, 0x10);
  r = parse_elf_bytes(bad_strtab, "strtab.so");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("no PT_LOAD"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace anygpu
