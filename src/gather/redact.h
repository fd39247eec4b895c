// What in a gathered file identifies the host, its users or its devices. Every file is scanned,
// so the manifest's privacy note says what the bundle holds; with `gather --redact` each value
// is replaced by a stand-in of the same shape, so the readers still parse the file and the
// replay still shows the same devices.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "gather/identifiers.h"

namespace anygpu::gather {

enum class Identifying { host_name, device_id, mac_address, user_name, kernel_log };
std::string_view to_string(Identifying kind);  // "host-name", "device-ids", …

struct RedactContext {
  std::vector<std::string> hostnames;      // the kernel's and /etc/hostname's, with short forms
  std::set<std::string> gpu_bus_ids;       // records naming these stay in a redacted kernel log
  std::set<std::string> kept_group_names;  // groups device access is about (video, render …)
};

class Redactor {
 public:
  Redactor(RedactContext context, bool apply) : context_(std::move(context)), apply_(apply) {}

  bool applies() const { return apply_; }
  // What to write for the host file `path`: `content` itself, or redacted when applying.
  std::string file(const std::string& path, std::string content);
  // The kernel log (all records; only the accelerators' when applying).
  std::string kernel_log(const std::string& path, std::string content);

  // Files holding each kind of identifying data (before redaction), in the order seen.
  const std::map<Identifying, std::vector<std::string>>& found() const { return found_; }
  size_t log_records() const { return log_records_; }
  size_t log_gpu_records() const { return log_gpu_records_; }

 private:
  std::string text(const std::string& path, std::string content);
  std::string groups(const std::string& path, std::string_view content);
  std::string kfd_properties(const std::string& path, std::string_view content);
  std::string unique_id(const std::string& path, std::string content);
  void note(Identifying kind, const std::string& path);

  RedactContext context_;
  bool apply_;
  Pseudonyms pseudonyms_;
  std::map<Identifying, std::vector<std::string>> found_;
  size_t log_records_ = 0, log_gpu_records_ = 0;
};

// The host names to look for: each value and, for a dotted name, its first label.
std::vector<std::string> hostname_forms(const std::vector<std::string>& values);

}  // namespace anygpu::gather
