#include "gather/manifest.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <ctime>

#include "gather/readers.h"
#include "host/paths.h"
#include "util/strings.h"

namespace anygpu::gather {

namespace {

using Json = nlohmann::ordered_json;

// Paths name users' home directories: a redacted manifest keeps the command's shape only.
std::vector<std::string> shown_command(const ManifestInput& in) {
  if (!in.redactor->applies()) return in.command;
  std::vector<std::string> out;
  for (const auto& a : in.command) {
    bool path = a.find('/') != std::string::npos;
    if (!path) {
      out.push_back(a);
      continue;
    }
    auto eq = a.find('=');  // --root=/home/…
    out.push_back(a.starts_with("--") && eq != std::string::npos ? a.substr(0, eq + 1) + "<path>"
                                                                 : "<path>");
  }
  return out;
}

Json source(const ManifestInput& in) {
  Json j;
  bool redact = in.redactor->applies();
  j["root"] = redact && in.root != "/" ? std::string("<path>") : in.root;
  const auto& h = in.inventory->host;
  if (h.os) j["os"] = *h.os;
  if (h.kernel) j["kernel"] = *h.kernel;
  if (h.arch) j["arch"] = *h.arch;
  j["devices"] = in.inventory->devices.size();
  return j;
}

Json copied(const CopyRecord& r) {
  return {{"files", r.files}, {"symlinks", r.links}, {"directories", r.dirs}, {"bytes", r.bytes}};
}

Json special_files(const CopyRecord& r) {
  auto out = Json::array();
  for (const auto& s : r.special) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", s.mode);
    Json j{{"path", s.path}, {"type", s.type}, {"mode", mode}, {"uid", s.uid}, {"gid", s.gid}};
    if (s.device)
      j["device"] = cat({std::to_string(s.device->first), ":", std::to_string(s.device->second)});
    out.push_back(std::move(j));
  }
  return out;
}

Json kernel_log(const CopyRecord& r, const Redactor& red) {
  if (!r.kernel_log_bytes) return nullptr;
  return {{"path", paths::kKmsg},
          {"records", red.log_records()},
          {"gpu_records", red.log_gpu_records()},
          {"kept_records", red.applies() ? red.log_gpu_records() : red.log_records()},
          {"bytes", *r.kernel_log_bytes}};
}

std::string_view holds(Identifying kind) {
  switch (kind) {
    case Identifying::host_name:
      return "the host name";
    case Identifying::device_id:
      return "device UUIDs, unique ids or serial numbers";
    case Identifying::mac_address:
      return "MAC addresses";
    case Identifying::user_name:
      return "user names (group members, users' own groups)";
    case Identifying::kernel_log:
      return "kernel log records of other drivers than the accelerators' (disks, network, USB, "
             "audit: they may name devices, peers and users)";
  }
  return "";
}

Json privacy(const Redactor& red) {
  Json found = Json::array();
  for (const auto& [kind, files] : red.found())
    found.push_back({{"kind", to_string(kind)},
                     {"holds", holds(kind)},
                     {"files", files},
                     {"redacted", red.applies()}});
  std::string note =
      red.applies()
          ? "Redacted: host names, UUIDs, unique ids, serial numbers and MAC addresses are "
            "replaced by stand-ins (one per value, the same in every file), /etc/group keeps "
            "group names and ids only, and the kernel log keeps the accelerators' records."
          : "Not redacted: the files listed hold what identifies this host, its users or its "
            "devices. Review them before sharing, or gather again with --redact.";
  return {{"note", note},
          {"found", std::move(found)},
          {"never_redacted",
           "file names and link targets, PCI bus ids, device and driver names and versions, the "
           "kernel and OS release, CDI specs' paths, and the accelerators' own kernel log "
           "records (which may name the process that faulted)"}};
}

}  // namespace

std::string utc_timestamp(std::chrono::system_clock::time_point when) {
  std::time_t t = std::chrono::system_clock::to_time_t(when);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string running_kernel() {
  struct utsname u {};
  if (::uname(&u) != 0) return {};
  return cat({u.sysname, " ", u.release, " ", u.version, " ", u.machine});
}

Json manifest_json(const ManifestInput& in) {
  const auto& r = *in.copied;
  Json j;
  j["schema"] = kManifestSchema;
  j["anygpu"] = in.version;
  j["command"] = shown_command(in);
  j["gathered_at"] = utc_timestamp(in.when);
  j["collector"] = {{"kernel", running_kernel()}, {"uid", ::geteuid()}};
  j["source"] = source(in);
  j["readers"] = reader_names();
  j["redacted"] = in.redactor->applies();
  j["copied"] = copied(r);
  if (auto log = kernel_log(r, *in.redactor); !log.is_null()) j["kernel_log"] = std::move(log);
  j["special_files"] = special_files(r);
  j["name_only"] = Json::array();
  for (const auto& [path, bytes] : r.name_only)
    j["name_only"].push_back({{"path", path}, {"bytes", bytes}});
  j["not_copied"] = Json::array();
  for (const auto& [path, why] : r.not_copied)
    j["not_copied"].push_back({{"path", path}, {"reason", why}});
  j["not_followed"] = Json::array();
  for (const auto& [path, why] : r.not_followed)
    j["not_followed"].push_back({{"path", path}, {"reason", why}});
  j["privacy"] = privacy(*in.redactor);
  return j;
}

}  // namespace anygpu::gather
