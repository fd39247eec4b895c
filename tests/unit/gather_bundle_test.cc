// What a gathered bundle says about itself (the manifest), what --redact leaves in it, and how it
// copies links: loops as links, nothing written outside the target.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "gather/gather.h"
#include "gather/manifest.h"
#include "gather_test_support.h"
#include "test_support.h"
#include "util/strings.h"

namespace fs = std::filesystem;

namespace anygpu {

namespace {

Result<GatherSummary> gather_into(const std::string& source, const std::string& dest,
                                  GatherOptions options = {}) {
  HostOptions o;
  o.root = source;
  o.load_libraries = false;
  return gather_host(HostRoot(o), dest, options);
}

nlohmann::json manifest_of(const std::string& bundle) {
  return nlohmann::json::parse(test::read_file(bundle + "/" + std::string(kGatherManifest)));
}

bool lists(const nlohmann::json& entries, const std::string& path) {
  for (const auto& e : entries)
    if (e["path"] == path) return true;
  return false;
}

const nlohmann::json* privacy_entry(const nlohmann::json& m, const std::string& kind) {
  for (const auto& e : m["privacy"]["found"])
    if (e["kind"] == kind) return &e;
  return nullptr;
}

// An ELF header: what makes a file a binary recorded by name.
std::string elf_object() {
  return std::string(
             "\x7f"
             "ELF\x02\x01\x01",
             7) +
         std::string(4089, '\0');
}

GatherOptions redacting(std::vector<std::string> command) {
  GatherOptions o;
  o.redact = true;
  o.command = std::move(command);
  return o;
}

std::string bus_without_function(const std::string& bus) {
  return bus.substr(0, bus.rfind('.'));
}

}  // namespace

TEST(GatherManifest, SaysWhatWhenHowAndWhatWasLeftOut) {
  test::TempDir t;
  auto source = t / "source";
  test::enrich_host("h100-8x", source);
  fs::remove(source + "/dev/nvidia-uvm-tools");
  ASSERT_EQ(::mkfifo((source + "/dev/nvidia-uvm-tools").c_str(), 0640), 0);
  bool root = ::geteuid() == 0;  // only root makes a real device node
  if (root) {
    fs::remove(source + "/dev/nvidiactl");
    ASSERT_EQ(::mknod((source + "/dev/nvidiactl").c_str(), S_IFCHR | 0666, makedev(195, 255)), 0);
  }
  // Doctor looks for container engines when a vendor has no CDI spec: without the planted
  // specs it reads /usr/bin/podman, an executable the gather records by name only.
  fs::remove_all(source + "/etc/cdi");
  fs::remove_all(source + "/run/cdi");
  test::write_file(source + "/usr/bin/podman", elf_object());
  test::write_file(source + "/etc/group", std::string(9 << 20, '#'));  // past the copy's cap

  auto before = std::chrono::system_clock::now() - std::chrono::seconds(1);
  auto summary = gather_into(source, t / "copy",
                             {.version = "anygpu 9.9.9 (test)", .command = {"anygpu", "gather"}});
  ASSERT_TRUE(summary) << summary.error().message;
  auto m = manifest_of(t / "copy");
  EXPECT_EQ(m["schema"], "anygpu.gather/v1");
  EXPECT_EQ(m["anygpu"], "anygpu 9.9.9 (test)");
  EXPECT_EQ(m["command"], nlohmann::json::array({"anygpu", "gather"}));
  std::string when = m["gathered_at"];
  EXPECT_EQ(when.size(), 20u) << when;
  EXPECT_EQ(when.back(), 'Z');
  EXPECT_GE(when, gather::utc_timestamp(before));
  EXPECT_TRUE(std::string(m["collector"]["kernel"]).starts_with("Linux ")) << m["collector"];
  EXPECT_EQ(m["collector"]["uid"], ::geteuid());
  EXPECT_EQ(m["source"]["kernel"], "6.8.0-45-generic");
  EXPECT_EQ(m["source"]["devices"], 8);
  EXPECT_NE(std::find(m["readers"].begin(), m["readers"].end(), "doctor"), m["readers"].end());
  EXPECT_EQ(m["copied"]["files"], summary->files);
  EXPECT_EQ(m["copied"]["symlinks"], summary->links);
  EXPECT_EQ(m["copied"]["bytes"], summary->bytes);
  EXPECT_EQ(m["kernel_log"]["records"], 5);
  EXPECT_EQ(m["kernel_log"]["gpu_records"], 2);
  EXPECT_EQ(m["kernel_log"]["kept_records"], 5);

  bool fifo = false, chr = false;
  for (const auto& s : m["special_files"]) {
    if (s["path"] == "/dev/nvidia-uvm-tools")
      fifo = s["type"] == "fifo" && s["mode"] == "0640" && !s.contains("device");
    if (s["path"] == "/dev/nvidiactl") chr = s["type"] == "char" && s["device"] == "195:255";
  }
  EXPECT_TRUE(fifo) << m["special_files"];
  EXPECT_EQ(chr, root) << m["special_files"];
  struct stat st {};
  ASSERT_EQ(::lstat((t / "copy/dev/nvidia-uvm-tools").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode) && st.st_size == 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);

  ASSERT_TRUE(lists(m["name_only"], "/usr/bin/podman")) << m["name_only"];
  EXPECT_EQ(m["name_only"][0]["bytes"], 4096);
  EXPECT_EQ(fs::file_size(t / "copy/usr/bin/podman"), 0u);
  EXPECT_EQ(fs::file_size(t / "copy/etc/ld.so.cache"), fs::file_size(source + "/etc/ld.so.cache"));
  ASSERT_TRUE(lists(m["not_copied"], "/etc/group")) << m["not_copied"];
  EXPECT_FALSE(fs::exists(t / "copy/etc/group"));
  for (const auto& e : m["not_copied"]) {
    if (e["path"] != "/etc/group") continue;
    EXPECT_NE(std::string(e["reason"]).find("larger than"), std::string::npos) << e;
  }
}

TEST(GatherManifest, ThePrivacyNoteNamesEveryFileHoldingIdentifyingData) {
  test::TempDir t;
  auto source = t / "source";
  test::enrich_host("mi300x-8x", source);
  auto summary = gather_into(source, t / "copy");
  ASSERT_TRUE(summary) << summary.error().message;
  auto m = manifest_of(t / "copy");
  EXPECT_FALSE(m["redacted"]);
  auto files = [&](const std::string& kind) {
    const auto* e = privacy_entry(m, kind);
    return e ? (*e)["files"] : nlohmann::json::array();
  };
  auto has = [&](const std::string& kind, const std::string& path) {
    auto f = files(kind);
    return std::find(f.begin(), f.end(), path) != f.end();
  };
  EXPECT_TRUE(has("host-name", "/proc/sys/kernel/hostname")) << m["privacy"];
  EXPECT_TRUE(has("device-ids",
                  "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/"
                  "0000:05:00.0/unique_id") ||
              !files("device-ids").empty())
      << m["privacy"];
  EXPECT_TRUE(has("device-ids", "/run/cdi/by-uuid.yaml")) << m["privacy"];
  EXPECT_TRUE(has("user-names", "/etc/group")) << m["privacy"];
  EXPECT_TRUE(has("kernel-log", "/dev/kmsg")) << m["privacy"];
  bool kfd = false, dsn = false;
  for (const auto& f : files("device-ids")) {
    kfd = kfd || std::string(f).ends_with("/properties");
    dsn = dsn || std::string(f).ends_with("/config");
  }
  EXPECT_TRUE(kfd && dsn) << m["privacy"];
  EXPECT_EQ(summary->privacy.size(), m["privacy"]["found"].size());
  // Not redacted: the values are still there.
  auto all = test::everything_in(t / "copy");
  EXPECT_NE(all.find("alice"), std::string::npos);
  EXPECT_NE(all.find(test::read_file(source + "/proc/sys/kernel/hostname")), std::string::npos);
}

// Every identifying value of the source, as the files spell it.
std::vector<std::string> identifiers_in(const std::string& source, const test::Planted& p) {
  std::vector<std::string> out = {p.hostname, p.spec_uuid.substr(4), p.mac, p.user, "bob", p.dsn};
  for (const auto& e : fs::recursive_directory_iterator(source)) {
    if (e.is_symlink() || !e.is_regular_file()) continue;
    auto name = e.path().filename().string();
    auto text = test::read_file(e.path().string());
    if (name == "unique_id") out.push_back(std::string(trim(text)));
    if (name == "information")
      if (auto u = token_after(text, "GPU UUID:")) out.push_back(u->substr(4));
    if (name == "properties")
      for (const char* key : {"unique_id ", "hive_id "})
        if (auto v = token_after(text, key); v && *v != "0") out.push_back(*v);
  }
  return out;
}

TEST(GatherRedact, LeavesNoIdentifierAndReplaysTheSameDevices) {
  for (const char* name : {"h100-8x", "mi300x-8x", "workstation-mixed"}) {
    test::TempDir t;
    auto source = t / "source";
    auto planted = test::enrich_host(name, source);
    auto summary = gather_into(source, t / "copy", redacting({}));
    ASSERT_TRUE(summary) << summary.error().message;
    EXPECT_TRUE(summary->redacted);
    auto ids = identifiers_in(source, planted);
    ASSERT_GE(ids.size(), 7u) << name;
    auto all = test::everything_in(t / "copy");
    for (const auto& id : ids) EXPECT_EQ(all.find(id), std::string::npos) << name << ": " << id;

    auto before = nlohmann::json::parse(test::detect_json(source))["devices"];
    auto after = nlohmann::json::parse(test::detect_json(t / "copy"))["devices"];
    ASSERT_EQ(before.size(), after.size()) << name;
    std::set<std::string> uuids;
    for (size_t i = 0; i < before.size(); ++i) {
      for (const char* field : {"pci_bus_id", "vendor", "name", "index", "status", "arch"})
        EXPECT_EQ(before[i].value(field, nlohmann::json()), after[i].value(field, nlohmann::json()))
            << name << " " << i << " " << field;
      if (!before[i].contains("uuid")) continue;
      ASSERT_TRUE(after[i].contains("uuid")) << name << " " << i;
      EXPECT_NE(before[i]["uuid"], after[i]["uuid"]);
      uuids.insert(after[i]["uuid"]);
    }
    EXPECT_EQ(uuids.size(), std::count_if(before.begin(), before.end(),
                                          [](const auto& d) { return d.contains("uuid"); }))
        << name << ": one stand-in per device";
    // The accelerators' kernel log records stay: the same health findings, evidence and all.
    EXPECT_EQ(test::health_json(source), test::health_json(t / "copy")) << name;
    EXPECT_EQ(test::doctor_json(source, test::identities()[0]),
              test::doctor_json(t / "copy", test::identities()[0]))
        << name;
    auto m = manifest_of(t / "copy");
    EXPECT_TRUE(m["redacted"]);
    EXPECT_EQ(m["kernel_log"]["kept_records"], 2) << name;
    EXPECT_NE(test::read_file(t / "copy/dev/kmsg")
                  .find("Xid (PCI:" + bus_without_function(planted.first_bus)),
              std::string::npos);
  }
}

TEST(GatherRedact, TheCommandLineKeepsItsShapeButNoPaths) {
  test::TempDir t;
  auto summary = gather_into(test::fixture_host("cloud-vm-none"), t / "copy",
                             redacting({"anygpu", "--root=/home/alice/hosts/vm", "gather",
                                        "--redact", "/home/alice/bundle"}));
  ASSERT_TRUE(summary) << summary.error().message;
  auto m = manifest_of(t / "copy");
  EXPECT_EQ(m["command"],
            nlohmann::json::array({"anygpu", "--root=<path>", "gather", "--redact", "<path>"}));
  EXPECT_EQ(m["source"]["root"], "<path>");
}

TEST(GatherLinks, LoopsAreCopiedAsLinksAndDoNotStopTheGather) {
  test::TempDir t;
  auto source = t / "source";
  test::copy_tree(test::fixture_host("h100-8x"), source);
  auto device = [&](const char* bus) {
    return fs::canonical(source + "/sys/bus/pci/devices/" + bus).string();
  };
  auto self = device("0000:18:00.0") + "/driver";
  test::make_symlink("driver", self);  // a link to itself
  auto a = device("0000:2a:00.0") + "/driver";
  test::make_symlink("driver.b", a);  // a two-link cycle
  test::make_symlink("driver", device("0000:2a:00.0") + "/driver.b");
  auto summary = gather_into(source, t / "copy");
  ASSERT_TRUE(summary) << summary.error().message;
  EXPECT_GE(summary->not_followed, 2u);
  auto in_copy = [&](const std::string& p) { return t / "copy" + p.substr(source.size()); };
  EXPECT_EQ(fs::read_symlink(in_copy(self)), "driver");
  EXPECT_EQ(fs::read_symlink(in_copy(a)), "driver.b");
  auto m = manifest_of(t / "copy");
  EXPECT_TRUE(lists(m["not_followed"], self.substr(source.size()))) << m["not_followed"];
  EXPECT_EQ(test::detect_json(source), test::detect_json(t / "copy"));
}

TEST(GatherLinks, NothingIsWrittenOutsideTheTarget) {
  test::TempDir t;
  auto source = t / "source";
  test::enrich_host("nvidia-open-l40s", source);
  auto victim = t / "victim";
  test::write_file(victim + "/cdi/keep.yaml", "untouched");
  // Links out of the source: absolute (the real path of a directory beside it) and climbing.
  fs::remove_all(source + "/etc/cdi");
  test::make_symlink(victim + "/cdi", source + "/etc/cdi");
  fs::remove_all(source + "/run/cdi");
  test::make_symlink("../../../../../../../victim/cdi", source + "/run/cdi");
  auto before = test::everything_in(victim);
  auto summary = gather_into(source, t / "copy");
  ASSERT_TRUE(summary) << summary.error().message;
  EXPECT_EQ(test::everything_in(victim), before);
  std::set<std::string> top;
  for (const auto& e : fs::directory_iterator(t.path())) top.insert(e.path().filename());
  EXPECT_EQ(top, (std::set<std::string>{"copy", "source", "victim"}));
  EXPECT_EQ(fs::read_symlink(t / "copy/etc/cdi"), victim + "/cdi");
}

}  // namespace anygpu
