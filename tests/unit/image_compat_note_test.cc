// The cuda-compat note reader on ELF files built here byte by byte (64- and 32-bit, both byte
// orders): the note nvidia-container-toolkit's cuda-elf-header_test.go records for
// libcuda.so.575.57.08, and every way the headers, the note or its JSON can be wrong.
#include <gtest/gtest.h>

#include <cstring>

#include "image/compat_note.h"

namespace anygpu::image {
namespace {

const std::string kDesc = R"({"Format":1,"CUDA Version":"12.9","Driver":[535,550,560,565,570,575],)"
                          R"("Device":[1,2,7,8,9,10,11,12,13,14]})";

struct ElfSpec {
  bool wide = true, big = false;
  std::string note_name = std::string("NVIDIA Corporation") + '\0';
  std::string desc = kDesc;
  std::string section = ".note.cuda.fwd_compatibility";
  uint32_t section_type = 7;
};

class Writer {
 public:
  explicit Writer(bool big) : big_(big) {}
  void put(std::string& s, size_t at, uint64_t v, int width) const {
    if (s.size() < at + width) s.resize(at + width, '\0');
    for (int i = 0; i < width; ++i)
      s[at + (big_ ? width - 1 - i : i)] = static_cast<char>((v >> (8 * i)) & 0xff);
  }

 private:
  bool big_;
};

std::string pad4(std::string s) {
  s.resize((s.size() + 3) / 4 * 4, '\0');
  return s;
}

// An ELF file: header, the note section, the name table, then three section headers
// (null, the note, .shstrtab), as a linker lays them out.
std::string make_elf(const ElfSpec& e) {
  Writer w(e.big);
  std::string f(e.wide ? 64 : 52, '\0');
  std::memcpy(f.data(),
              "\x7f"
              "ELF",
              4);
  f[4] = e.wide ? 2 : 1;
  f[5] = e.big ? 2 : 1;
  f[6] = 1;
  std::string note;
  w.put(note, 0, e.note_name.size(), 4);
  w.put(note, 4, e.desc.size(), 4);
  w.put(note, 8, 1, 4);
  note += pad4(e.note_name) + pad4(e.desc);
  size_t note_at = f.size();
  f += note;
  std::string names = std::string("\0", 1) + e.section + '\0' + ".shstrtab" + '\0';
  size_t names_at = f.size();
  f += names;
  f.resize((f.size() + 7) / 8 * 8, '\0');
  size_t shoff = f.size();
  size_t ent = e.wide ? 64 : 40;
  std::string sh(3 * ent, '\0');
  auto section = [&](int i, uint32_t name, uint32_t type, uint64_t off, uint64_t size) {
    size_t at = i * ent;
    w.put(sh, at, name, 4);
    w.put(sh, at + 4, type, 4);
    w.put(sh, at + (e.wide ? 24 : 16), off, e.wide ? 8 : 4);
    w.put(sh, at + (e.wide ? 32 : 20), size, e.wide ? 8 : 4);
    w.put(sh, at + (e.wide ? 48 : 32), 4, e.wide ? 8 : 4);
  };
  section(1, 1, e.section_type, note_at, note.size());
  section(2, 1 + e.section.size() + 1, 3, names_at, names.size());
  f += sh;
  w.put(f, e.wide ? 0x28 : 0x20, shoff, e.wide ? 8 : 4);
  w.put(f, e.wide ? 0x3A : 0x2E, ent, 2);
  w.put(f, e.wide ? 0x3C : 0x30, 3, 2);
  w.put(f, e.wide ? 0x3E : 0x32, 2, 2);
  return f;
}

TEST(CompatNote, ReadsTheNoteOfEveryClassAndByteOrder) {
  for (bool wide : {true, false})
    for (bool big : {false, true}) {
      ElfSpec e;
      e.wide = wide;
      e.big = big;
      auto n = read_compat_note(make_elf(e));
      ASSERT_TRUE(n.ok()) << n.error().message;
      ASSERT_TRUE(n->has_value());
      EXPECT_EQ((*n)->format, 1);
      EXPECT_EQ((*n)->cuda_version, "12.9");
      EXPECT_EQ((*n)->drivers, (std::vector<int>{535, 550, 560, 565, 570, 575}));
      EXPECT_EQ((*n)->devices.size(), 10u);
    }
}

TEST(CompatNote, NoNoteIsNotAnError) {
  ElfSpec other;
  other.section = ".note.gnu.build-id";
  auto n = read_compat_note(make_elf(other));
  ASSERT_TRUE(n.ok());
  EXPECT_FALSE(n->has_value());
  ElfSpec owner;
  owner.note_name = std::string("GNU") + '\0';
  n = read_compat_note(make_elf(owner));
  ASSERT_TRUE(n.ok());
  EXPECT_FALSE(n->has_value());
  ElfSpec progbits;  // the right name on a section that is no note
  progbits.section_type = 1;
  n = read_compat_note(make_elf(progbits));
  ASSERT_TRUE(n.ok());
  EXPECT_FALSE(n->has_value());
  // An Orin compat library's note carries no Driver list (cuda-elf-header_test.go).
  ElfSpec orin;
  orin.desc = R"({"Format":1,"CUDA Version":"13.2"})";
  n = read_compat_note(make_elf(orin));
  ASSERT_TRUE(n.ok()) << n.error().message;
  EXPECT_TRUE((*n)->drivers.empty());
}

void expect_refused(const std::string& bytes, const std::string& needle) {
  auto n = read_compat_note(bytes);
  ASSERT_FALSE(n.ok()) << needle;
  EXPECT_NE(n.error().message.find(needle), std::string::npos) << n.error().message;
}

TEST(CompatNote, MalformedFilesAreRefusedWithTheReason) {
  auto good = make_elf({});
  expect_refused("", "not an ELF file");
  expect_refused(
      "\x7f"
      "ELF",
      "not an ELF file");
  expect_refused(good.substr(0, 40), "ELF header cut short");
  auto bad_class = good;
  bad_class[4] = 3;
  expect_refused(bad_class, "ELF class 3");
  Writer w(false);
  auto shoff = good;
  w.put(shoff, 0x28, good.size() + 100, 8);
  expect_refused(shoff, "section headers lie outside the file");
  auto huge_shoff = good;
  w.put(huge_shoff, 0x28, ~uint64_t{0} - 10, 8);
  expect_refused(huge_shoff, "section headers lie outside the file");
  auto count = good;
  w.put(count, 0x3C, 60000, 2);
  expect_refused(count, "run past the end of the file");
  auto strndx = good;
  w.put(strndx, 0x3E, 7, 2);
  expect_refused(strndx, "section name table index 7");
  auto entsize = good;
  w.put(entsize, 0x3A, 12, 2);
  expect_refused(entsize, "section header size 12");
  // The note section's own offset beyond the file.
  auto sect = good;
  size_t sh1 = good.size() - 3 * 64 + 64;
  w.put(sect, sh1 + 24, 1u << 30, 8);
  expect_refused(sect, "lies outside the file");
  // A description size running past the section.
  auto desc = good;
  w.put(desc, 64 + 4, 4096, 4);
  expect_refused(desc, "runs past the section");
  ElfSpec json;
  json.desc = "{not json";
  expect_refused(make_elf(json), "not a JSON object");
  ElfSpec no_cuda;
  no_cuda.desc = R"({"Format":1,"Driver":[535]})";
  expect_refused(make_elf(no_cuda), "\"CUDA Version\"");
  ElfSpec words;
  words.desc = R"({"CUDA Version":"12.9","Driver":"535"})";
  expect_refused(make_elf(words), "\"Driver\" is not a list");
  ElfSpec negative;
  negative.desc = R"({"CUDA Version":"12.9","Driver":[-1]})";
  expect_refused(make_elf(negative), "\"Driver\" holds -1");
  ElfSpec version;
  version.desc = R"({"CUDA Version":"twelve"})";
  expect_refused(make_elf(version), "\"CUDA Version\"");
}

TEST(CompatNote, CompatLibraryPaths) {
  EXPECT_TRUE(is_compat_library("usr/local/cuda-12.9/compat/libcuda.so.575.57.08"));
  EXPECT_TRUE(is_compat_library("usr/local/cuda/compat/libcuda.so.1"));
  EXPECT_TRUE(is_compat_library("opt/conda/cuda-compat/libcuda.so.550.54.15"));
  EXPECT_FALSE(is_compat_library("usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15"));
  EXPECT_FALSE(is_compat_library("usr/local/cuda/compat/libnvidia-ptxjitcompiler.so.575.57.08"));
  EXPECT_FALSE(is_compat_library("compat/libcuda.so."));
  EXPECT_EQ(compat_driver_version("usr/local/cuda/compat/libcuda.so.575.57.08"), "575.57.08");
  EXPECT_EQ(compat_driver_version("usr/local/cuda/compat/libcuda.so.1"), std::nullopt);
}

}  // namespace
}  // namespace anygpu::image
