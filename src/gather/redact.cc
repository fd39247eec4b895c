#include "gather/redact.h"

#include <cinttypes>
#include <cstdio>

#include "doctor/host_paths.h"
#include "gather/kernel_log_filter.h"
#include "gather/pci_config.h"
#include "host/paths.h"
#include "util/strings.h"

namespace anygpu::gather {

namespace {

constexpr uint64_t kFirstUserGid = 1000;  // login.defs GID_MIN: user private groups from here
constexpr uint64_t kNogroupGid = 65534;

std::string_view base_name(std::string_view path) {
  auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool is_kfd_properties(std::string_view path) {
  return base_name(path) == "properties" && path.find("/kfd/") != std::string_view::npos;
}

bool is_os_release(std::string_view path) {
  for (auto p : paths::kOsReleaseFiles)
    if (path == p) return true;
  return false;
}

bool is_pci_config(std::string_view path) {
  return base_name(path) == "config" && path.starts_with(paths::kSysfsPrefix);
}

}  // namespace

std::string_view to_string(Identifying kind) {
  switch (kind) {
    case Identifying::host_name:
      return "host-name";
    case Identifying::device_id:
      return "device-ids";
    case Identifying::mac_address:
      return "mac-addresses";
    case Identifying::user_name:
      return "user-names";
    case Identifying::kernel_log:
      return "kernel-log";
  }
  return "unknown";
}

std::vector<std::string> hostname_forms(const std::vector<std::string>& values) {
  std::set<std::string> forms;
  for (const auto& v : values) {
    auto name = std::string(trim(v));
    if (name.empty()) continue;
    forms.insert(name);
    if (auto dot = name.find('.'); dot != std::string::npos && dot > 0)
      forms.insert(name.substr(0, dot));
  }
  return {forms.begin(), forms.end()};
}

void Redactor::note(Identifying kind, const std::string& path) {
  auto& files = found_[kind];
  if (files.empty() || files.back() != path) files.push_back(path);
}

std::string Redactor::file(const std::string& path, std::string content) {
  std::string redacted;
  if (path == doctor_paths::kEtcGroup) {
    redacted = groups(path, content);
  } else if (is_pci_config(path)) {  // binary: the serial is all it identifies
    size_t cleared = 0;
    redacted = clear_dsn_serials(content, cleared);
    if (cleared) note(Identifying::device_id, path);
    return apply_ ? redacted : content;
  } else if (content.find('\0') != std::string::npos) {
    return content;  // binary (ld.so.cache): no text identifiers to find
  } else if (base_name(path) == "unique_id") {
    redacted = unique_id(path, content);
  } else if (is_kfd_properties(path)) {
    redacted = kfd_properties(path, content);
  } else if (base_name(path).find("serial") != std::string_view::npos) {
    if (!trim(content).empty()) note(Identifying::device_id, path);
    redacted = "redacted\n";
  } else {
    redacted = content;
  }
  redacted = text(path, std::move(redacted));
  return apply_ ? redacted : content;
}

std::string Redactor::kernel_log(const std::string& path, std::string content) {
  auto split = keep_gpu_records(content, context_.gpu_bus_ids);
  log_records_ = split.records;
  log_gpu_records_ = split.kept_records;
  if (split.records > split.kept_records) note(Identifying::kernel_log, path);
  auto redacted = text(path, std::move(split.kept));
  return apply_ ? redacted : content;
}

// The identifiers any text may carry: UUIDs, MAC addresses, the host name.
std::string Redactor::text(const std::string& path, std::string content) {
  size_t uuids = 0, macs = 0, names = 0;
  content = replace_uuids(content, pseudonyms_, uuids);
  content = replace_macs(content, pseudonyms_, macs);
  // A default host name ("ubuntu", "debian") is the distribution's own word in os-release,
  // which names no host: replacing it there would change what detect reports.
  if (!is_os_release(path))
    content = replace_words(content, context_.hostnames, kRedactedHostname, names);
  if (uuids) note(Identifying::device_id, path);
  if (macs) note(Identifying::mac_address, path);
  if (names) note(Identifying::host_name, path);
  return content;
}

// name:password:gid:members. Member lists name users; a group from GID_MIN up is a user's own
// (named after them) unless device access is about it. Lines that do not parse are dropped.
std::string Redactor::groups(const std::string& path, std::string_view content) {
  std::string out;
  bool users = false;
  for (auto line : split_lines(content)) {
    auto fields = split(line, ':');
    auto gid = fields.size() >= 3 ? parse_uint(fields[2]) : std::nullopt;
    if (!gid) {
      users = users || !trim(line).empty();
      continue;
    }
    std::string name(fields[0]);
    if (fields.size() >= 4 && !trim(fields[3]).empty()) users = true;
    if (*gid >= kFirstUserGid && *gid != kNogroupGid && !context_.kept_group_names.count(name)) {
      users = true;
      name = cat({"group", std::to_string(*gid)});
    }
    out += cat({name, ":x:", std::to_string(*gid), ":\n"});
  }
  if (users) note(Identifying::user_name, path);
  return out;
}

// sysfs prints the 64-bit id as 16 hex digits.
std::string Redactor::unique_id(const std::string& path, std::string content) {
  auto value = parse_hex(trim(content));
  if (!value) return content;  // not an id: left for the reader to report as it is
  note(Identifying::device_id, path);
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016" PRIx64 "\n", pseudonyms_.device_id(*value));
  return buf;
}

// KFD prints the same ids in decimal: "unique_id 528203313546524046", "hive_id …".
std::string Redactor::kfd_properties(const std::string& path, std::string_view content) {
  std::string out;
  for (auto line : split_lines(content)) {
    auto space = line.find(' ');
    auto key = line.substr(0, space);
    auto value = parse_uint(line.substr(space == std::string_view::npos ? line.size() : space + 1));
    if ((key != "unique_id" && key != "hive_id") || !value) {
      out += cat({line, "\n"});
      continue;
    }
    uint64_t id = value.value_or(0);
    if (id) note(Identifying::device_id, path);
    out += cat({key, " ", std::to_string(pseudonyms_.device_id(id)), "\n"});
  }
  return out;
}

}  // namespace anygpu::gather
