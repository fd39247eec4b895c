// Identifiers in text, found and replaced by stand-ins: UUIDs (NVIDIA GPU UUIDs, CDI device
// names, MIG and vGPU ids), MAC addresses and host names. Stand-ins are numbered in order of
// first appearance, so one value gets the same stand-in in every file of a gather and two
// values never share one.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace anygpu::gather {

// The stand-in the host name becomes.
inline constexpr std::string_view kRedactedHostname = "redacted-host";

class Pseudonyms {
 public:
  // "00000000-0000-4000-8000-00000000000N" for the Nth distinct UUID (case-insensitive).
  std::string uuid(std::string_view original);
  // "02:00:00:00:00:0N" (a locally administered unicast address) for the Nth distinct MAC.
  std::string mac(std::string_view original);
  // N for the Nth distinct non-zero 64-bit device id (AMD unique_id, XGMI hive_id); 0 stays 0,
  // the drivers' "none".
  uint64_t device_id(uint64_t original);

 private:
  std::map<std::string, std::string> uuids_, macs_;
  std::map<uint64_t, uint64_t> ids_;
};

// Each 8-4-4-4-12 hex UUID not inside a longer hex or word run, replaced; the count in `found`.
std::string replace_uuids(std::string_view text, Pseudonyms& p, size_t& found);
// Each colon-separated six-octet MAC address, replaced.
std::string replace_macs(std::string_view text, Pseudonyms& p, size_t& found);
// Each whole-word occurrence of one of `words` (host names: letters, digits, '-', '_' are word
// characters, so "node1" is not found in "node10" but is in "node1.example.com"), longest
// first, replaced by `with`.
std::string replace_words(std::string_view text, const std::vector<std::string>& words,
                          std::string_view with, size_t& found);

}  // namespace anygpu::gather
