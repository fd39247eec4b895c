#include "gather/identifiers.h"

#include <algorithm>
#include <cstdio>

#include "util/strings.h"

namespace anygpu::gather {

namespace {

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool is_word(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
         c == '_';
}

// `pattern`: 'x' a hex digit, any other character itself.
bool matches_at(std::string_view text, size_t at, std::string_view pattern) {
  if (at + pattern.size() > text.size()) return false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = text[at + i];
    if (pattern[i] == 'x' ? !is_hex(c) : c != pattern[i]) return false;
  }
  return true;
}

// Replaces each occurrence of `pattern` that no character of `joins` touches on either side.
template <class F>
std::string replace_pattern(std::string_view text, std::string_view pattern, bool (*joins)(char),
                            F&& stand_in, size_t& found) {
  std::string out;
  out.reserve(text.size());
  for (size_t at = 0; at < text.size();) {
    bool free_before = at == 0 || !joins(text[at - 1]);
    size_t end = at + pattern.size();
    if (free_before && matches_at(text, at, pattern) && (end == text.size() || !joins(text[end]))) {
      out += stand_in(text.substr(at, pattern.size()));
      ++found;
      at = end;
      continue;
    }
    out += text[at++];
  }
  return out;
}

// "GPU-<uuid>" and "MIG-<uuid>" are the usual spellings: a '-' before or after does not join.
bool joins_uuid(char c) {
  return c != '-' && is_word(c);
}

bool joins_mac(char c) {
  return is_hex(c) || c == ':';
}

}  // namespace

std::string Pseudonyms::uuid(std::string_view original) {
  auto [it, fresh] = uuids_.try_emplace(to_lower(original));
  if (fresh) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "00000000-0000-4000-8000-%012zx", uuids_.size());
    it->second = buf;
  }
  return it->second;
}

std::string Pseudonyms::mac(std::string_view original) {
  auto [it, fresh] = macs_.try_emplace(to_lower(original));
  if (fresh) {
    size_t n = macs_.size();
    char buf[24];
    std::snprintf(buf, sizeof buf, "02:00:00:00:%02zx:%02zx", (n >> 8) & 0xff, n & 0xff);
    it->second = buf;
  }
  return it->second;
}

uint64_t Pseudonyms::device_id(uint64_t original) {
  if (original == 0) return 0;
  auto [it, fresh] = ids_.try_emplace(original, ids_.size() + 1);
  return it->second;
}

std::string replace_uuids(std::string_view text, Pseudonyms& p, size_t& found) {
  return replace_pattern(
      text, "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", joins_uuid,
      [&](std::string_view u) { return p.uuid(u); }, found);
}

std::string replace_macs(std::string_view text, Pseudonyms& p, size_t& found) {
  return replace_pattern(
      text, "xx:xx:xx:xx:xx:xx", joins_mac, [&](std::string_view m) { return p.mac(m); }, found);
}

std::string replace_words(std::string_view text, const std::vector<std::string>& words,
                          std::string_view with, size_t& found) {
  std::vector<std::string> longest_first;
  for (const auto& w : words)
    if (!w.empty()) longest_first.push_back(w);
  std::sort(longest_first.begin(), longest_first.end(),
            [](const auto& a, const auto& b) { return a.size() > b.size(); });
  std::string out;
  out.reserve(text.size());
  for (size_t at = 0; at < text.size();) {
    bool free_before = at == 0 || !is_word(text[at - 1]);
    bool replaced = false;
    for (const auto& w : longest_first) {
      size_t end = at + w.size();
      if (!free_before || text.compare(at, w.size(), w) != 0) continue;
      if (end < text.size() && is_word(text[end])) continue;
      out += with;
      ++found;
      at = end;
      replaced = true;
      break;
    }
    if (!replaced) out += text[at++];
  }
  return out;
}

}  // namespace anygpu::gather
