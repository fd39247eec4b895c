// The cache of what images hold (image/facts_cache.h): facts written and read back unchanged
// (but for the parts of kept texts the judge does not read), every way an entry can lie refused,
// a corrupt entry set aside, another reader version's entry replaced, the bound on entries.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <utime.h>

#include <filesystem>

#include "image/facts_cache.h"
#include "test_support.h"

namespace anygpu::image {
namespace {

namespace fs = std::filesystem;

std::string id_of(char c) {
  return "sha256:" + std::string(64, c);
}

ImageContents sample(const std::string& id) {
  ImageContents c;
  c.id = id;
  c.architecture = "amd64";
  c.os = "linux";
  c.env = {"CUDA_VERSION=12.4.1", "NVIDIA_REQUIRE_CUDA=cuda>=12.4"};
  c.layers = {"sha256:" + std::string(64, '1'), "sha256:" + std::string(64, '2')};
  c.files["usr/lib/python3/site-packages/torch/version.py"] =
      ImageFile{0, "__version__ = '2.5.1+cu124'\n", false, {}, std::nullopt};
  c.files["usr/lib/python3/site-packages/torch-2.5.1.dist-info/METADATA"] =
      ImageFile{0,
                "Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1\n\nA long description\n",
                false,
                {},
                std::nullopt};
  c.files["opt/conda/conda-meta/pytorch-2.5.1-py3.11_cuda12.4_0.json"] =
      ImageFile{0, "{\"name\": \"pytorch\"}", false, {}, std::nullopt};
  CodeObjects o;
  o.sass = {80, 90};
  o.ptx = {90};
  o.specific = {"sm_90a"};
  c.files["usr/lib/python3/site-packages/torch/lib/libtorch_cuda.so"] =
      ImageFile{1, "", true, o, std::nullopt};
  CudaCompat compat;
  compat.driver_version = "575.57.08";
  compat.note = CompatNote{1, "12.9", {535, 550, 575}, {1, 2}};
  c.files["usr/local/cuda-12.9/compat/libcuda.so.575.57.08"] = ImageFile{1, "", false, {}, compat};
  return c;
}

TEST(ImageFactsCache, RoundTrip) {
  auto c = sample(id_of('a'));
  auto back = facts_from_json(facts_to_json(c), c.id);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->env, c.env);
  EXPECT_EQ(back->layers, c.layers);
  EXPECT_EQ(back->architecture, "amd64");
  ASSERT_EQ(back->files.size(), c.files.size());
  const auto& lib = back->files.at("usr/lib/python3/site-packages/torch/lib/libtorch_cuda.so");
  EXPECT_TRUE(lib.library);
  EXPECT_EQ(lib.layer, 1u);
  EXPECT_EQ(lib.objects.sass, (std::vector<int>{80, 90}));
  EXPECT_EQ(lib.objects.specific, (std::vector<std::string>{"sm_90a"}));
  const auto& compat = back->files.at("usr/local/cuda-12.9/compat/libcuda.so.575.57.08");
  ASSERT_TRUE(compat.compat && compat.compat->note);
  EXPECT_EQ(compat.compat->note->drivers, (std::vector<int>{535, 550, 575}));
  EXPECT_EQ(back->files.at("usr/lib/python3/site-packages/torch/version.py").text,
            "__version__ = '2.5.1+cu124'\n");
  // A METADATA is kept to its header block, a conda record by its name only.
  EXPECT_EQ(back->files.at("usr/lib/python3/site-packages/torch-2.5.1.dist-info/METADATA").text,
            "Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1\n");
  EXPECT_EQ(back->files.at("opt/conda/conda-meta/pytorch-2.5.1-py3.11_cuda12.4_0.json").text, "");
}

TEST(ImageFactsCache, EntryNames) {
  EXPECT_EQ(cache_entry_name(id_of('a')), "sha256-" + std::string(64, 'a') + ".json");
  EXPECT_EQ(cache_entry_name("sha256:ABC"), "");
  EXPECT_EQ(cache_entry_name("sha256:" + std::string(64, 'A')), "");  // upper case: not a name
  EXPECT_EQ(cache_entry_name("sha256:" + std::string(63, 'a') + "/"), "");
  EXPECT_EQ(cache_entry_name("md5:" + std::string(64, 'a')), "");
}

TEST(ImageFactsCache, LyingEntriesAreRefused) {
  auto good = nlohmann::json::parse(facts_to_json(sample(id_of('a'))));
  auto refused = [&](auto change, const std::string& why) {
    auto j = good;
    change(j);
    auto r = facts_from_json(j.dump(), id_of('a'));
    EXPECT_FALSE(r.ok()) << j.dump();
    if (!r.ok()) {
      EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
      EXPECT_NE(r.error().message.find(why), std::string::npos) << r.error().message;
    }
  };
  refused([](auto& j) { j["schema"] = "other/v1"; }, "another schema");
  refused([](auto& j) { j["id"] = id_of('b'); }, "it is the entry of");
  refused([](auto& j) { j.erase("files"); }, "'files' missing");
  refused([](auto& j) { j["env"] = {1}; }, "'env' holds");
  refused([](auto& j) { j["files"][0]["path"] = "/etc/passwd"; }, "no member path");
  refused([](auto& j) { j["files"][0]["path"] = "a/../../b"; }, "no member path");
  refused([](auto& j) { j["files"][0]["path"] = "a//b"; }, "no member path");
  refused([](auto& j) { j["files"][0]["layer"] = 2; }, "layer out of range");
  refused([](auto& j) { j["files"][0]["layer"] = -1; }, "'layer' has the wrong type");
  refused([](auto& j) { j["files"][0]["library"] = 1; }, "'library' has the wrong type");
  refused([](auto& j) { j["files"][1] = j["files"][0]; }, "twice");
  refused([](auto& j) { j["files"][0]["text"] = std::string((64 << 10) + 1, 'x'); },
          "'text' too long");
  // A library without its code objects, with a negative or huge arch number.
  auto lib = [](auto& j) -> nlohmann::json& {
    for (auto& f : j["files"])
      if (f["library"] == true) return f;
    return j["files"][0];
  };
  refused([&](auto& j) { lib(j).erase("objects"); }, "an object expected");
  refused([&](auto& j) { lib(j)["objects"]["sass"] = {-90}; }, "'sass' holds");
  refused([&](auto& j) { lib(j)["objects"]["sass"] = {1000000}; }, "'sass' holds");
  refused([&](auto& j) { lib(j)["objects"]["gfx"] = {std::string(5000, 'g')}; }, "'gfx' holds");
  auto compat = [](auto& j) -> nlohmann::json& {
    for (auto& f : j["files"])
      if (f.contains("compat")) return f["compat"];
    return j["files"][0];
  };
  refused([&](auto& j) { compat(j)["note"]["cuda_version"] = "twelve"; }, "no version");
  refused([&](auto& j) { compat(j)["note"]["drivers"] = "535"; }, "'drivers' has the wrong type");
  EXPECT_FALSE(facts_from_json("{", id_of('a')).ok());
  EXPECT_FALSE(facts_from_json("[]", id_of('a')).ok());
  EXPECT_FALSE(facts_from_json("", id_of('a')).ok());
}

TEST(ImageFactsCache, StoreLoadSetAsideAndBound) {
  test::TempDir tmp;
  auto cache = FactsCache::at(tmp.path());
  ASSERT_TRUE(cache.ok()) << cache.error().message;
  std::vector<std::string> warnings;
  EXPECT_FALSE(cache->load(id_of('a'), warnings));
  cache->store(sample(id_of('a')), warnings);
  EXPECT_TRUE(warnings.empty());
  auto entry = tmp / ("images/" + cache_entry_name(id_of('a')));
  struct stat st {};
  ASSERT_EQ(::stat(entry.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto got = cache->load(id_of('a'), warnings);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->files.size(), 5u);
  EXPECT_TRUE(warnings.empty());

  // Corrupt: not trusted, set aside, a warning naming it.
  test::write_file(entry, "{\"schema\": \"anygpu.image-facts/v1\", \"id\": 3}");
  EXPECT_FALSE(cache->load(id_of('a'), warnings));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("is corrupt ('id' has the wrong type); not trusted, set aside as"),
            std::string::npos)
      << warnings[0];
  EXPECT_FALSE(fs::exists(entry));
  size_t aside = 0;
  for (const auto& e : fs::directory_iterator(tmp / "images"))
    aside += e.path().filename().string().find(".corrupt-") != std::string::npos;
  EXPECT_EQ(aside, 1u);

  // Another reader version's entry is stale: replaced without a warning.
  warnings.clear();
  auto stale = nlohmann::json::parse(facts_to_json(sample(id_of('a'))));
  stale["reader"] = "0.0.1/0";
  test::write_file(entry, stale.dump());
  EXPECT_FALSE(cache->load(id_of('a'), warnings));
  EXPECT_TRUE(warnings.empty());
  EXPECT_TRUE(fs::exists(entry));

  // Bounded: the oldest entries go first.
  for (size_t i = 0; i < kMaxCacheEntries + 5; ++i) {
    char hex[65];
    std::snprintf(hex, sizeof hex, "%064zx", i + 1);
    cache->store(sample(std::string("sha256:") + hex), warnings);
    auto name = tmp / ("images/sha256-" + std::string(hex) + ".json");
    struct utimbuf t {
      static_cast<time_t>(1000000 + i), static_cast<time_t>(1000000 + i)
    };
    ::utime(name.c_str(), &t);  // distinct ages on file systems with coarse times
  }
  EXPECT_TRUE(warnings.empty());
  size_t count = 0;
  for (const auto& e : fs::directory_iterator(tmp / "images")) {
    (void)e;
    ++count;
  }
  EXPECT_EQ(count, kMaxCacheEntries);
  char first[65];
  std::snprintf(first, sizeof first, "%064zx", size_t{1});
  EXPECT_FALSE(fs::exists(tmp / ("images/sha256-" + std::string(first) + ".json")));
}

}  // namespace
}  // namespace anygpu::image
