#include "health/kmsg.h"

#include <algorithm>
#include <cctype>

#include "model/inventory.h"
#include "util/strings.h"

namespace anygpu::health {

namespace {

// "PRIO,SEQ,TS,FLAGS[,…]" → the first three fields; FLAGS ('-' or 'c', or a future value)
// and anything after is accepted as the ABI document asks of readers.
bool parse_header(std::string_view header, KmsgRecord& r) {
  auto fields = split(header, ',');
  if (fields.size() < 4) return false;
  auto prio = parse_uint(fields[0]);
  auto seq = parse_uint(fields[1]);
  auto ts = parse_uint(fields[2]);
  if (!prio || !seq || !ts || *prio > 1023) return false;
  r.priority = static_cast<int>(*prio & 7);
  r.sequence = *seq;
  r.timestamp_us = *ts;
  return true;
}

bool is_driver_name(std::string_view s) {
  if (s.empty() || s.size() > 32) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
  return true;
}

// dev_printk's prefix: "amdgpu 0000:c1:00.0: …" → driver and bus id.
void parse_device_prefix(KmsgRecord& r) {
  std::string_view m = r.message;
  auto space = m.find(' ');
  if (space == std::string_view::npos) return;
  auto driver = m.substr(0, space);
  auto rest = m.substr(space + 1);
  auto colon = rest.find(": ");
  if (colon == std::string_view::npos || !is_driver_name(driver)) return;
  auto addr = PciAddress::parse(rest.substr(0, colon));
  if (!addr) return;
  r.driver = std::string(driver);
  if (!r.device) r.device = addr->str();
}

void apply_dictionary(std::string_view line, KmsgRecord& r) {
  constexpr std::string_view kDevice = "DEVICE=+pci:";
  if (!line.starts_with(kDevice)) return;
  auto addr = PciAddress::parse(line.substr(kDevice.size()));
  if (addr) r.device = addr->str();
}

}  // namespace

KmsgLog parse_kmsg(std::string_view text) {
  KmsgLog log;
  bool have_record = false;
  for (std::string_view line : split_lines(text)) {
    if (line.empty()) continue;
    if (line.front() == ' ') {
      if (have_record) apply_dictionary(line.substr(1), log.records.back());
      continue;
    }
    auto semi = line.find(';');
    KmsgRecord r;
    if (semi == std::string_view::npos || !parse_header(line.substr(0, semi), r)) {
      ++log.malformed;
      have_record = false;
      continue;
    }
    r.message = std::string(line.substr(semi + 1));
    parse_device_prefix(r);
    log.records.push_back(std::move(r));
    have_record = true;
  }
  return log;
}

namespace {

// "[  5123.000042]" → microseconds; the cursor moves past it.
std::optional<uint64_t> take_time(std::string_view& s) {
  if (!s.starts_with('[')) return std::nullopt;
  auto close = s.find(']');
  if (close == std::string_view::npos) return std::nullopt;
  auto inside = trim(s.substr(1, close - 1));
  auto dot = inside.find('.');
  if (dot == std::string_view::npos || inside.size() - dot - 1 != 6) return std::nullopt;
  auto secs = parse_uint(inside.substr(0, dot)), micros = parse_uint(inside.substr(dot + 1));
  if (!secs || !micros || *secs > UINT64_MAX / 1000000 - 1) return std::nullopt;
  s.remove_prefix(close + 1);
  return *secs * 1000000 + *micros;
}

// "[  T123]" or "[    C4]": the caller id CONFIG_PRINTK_CALLER prints right after the time.
bool take_caller(std::string_view& s) {
  if (!s.starts_with('[')) return false;
  auto close = s.find(']');
  if (close == std::string_view::npos) return false;
  auto id = trim(s.substr(1, close - 1));
  if (id.size() < 2 || (id[0] != 'T' && id[0] != 'C') || !parse_uint(id.substr(1))) return false;
  s.remove_prefix(close + 1);
  return true;
}

}  // namespace

SyslogLog parse_syslog_text(std::string_view text) {
  SyslogLog log;
  uint64_t line_no = 0;
  for (std::string_view line : split_lines(text)) {
    ++line_no;
    if (line.empty()) continue;
    auto close = line.find('>');
    auto prio = line.starts_with('<') && close != std::string_view::npos
                    ? parse_uint(line.substr(1, close - 1))
                    : std::nullopt;
    if (!prio || *prio > 1023) {
      ++log.malformed;
      continue;
    }
    auto rest = line.substr(close + 1);
    KmsgRecord r;
    r.priority = static_cast<int>(*prio & 7);
    r.sequence = line_no;
    auto time = take_time(rest);
    bool caller = take_caller(rest);
    if ((time || caller) && rest.starts_with(' ')) rest.remove_prefix(1);
    if (time)
      r.timestamp_us = *time;
    else
      ++log.untimed;
    r.message = std::string(rest);
    parse_device_prefix(r);
    log.records.push_back(std::move(r));
  }
  return log;
}

std::optional<XidEvent> parse_xid(std::string_view m) {
  XidEvent e;
  auto at = m.find("SXid (");
  if (at != std::string_view::npos) {
    e.switch_event = true;
    at += 6;
  } else {
    at = m.find("Xid (");
    if (at == std::string_view::npos) return std::nullopt;
    at += 5;
  }
  auto close = m.find(')', at);
  if (close == std::string_view::npos) return std::nullopt;
  auto inside = m.substr(at, close - at);  // "PCI:0000:18:00" or "PCI:0000:01:00 GPU-I:05"
  if (inside.starts_with("PCI:")) inside.remove_prefix(4);
  inside = inside.substr(0, inside.find(' '));
  if (inside.empty() || inside.size() > 16 || std::count(inside.begin(), inside.end(), ':') != 2)
    return std::nullopt;
  for (char c : inside)
    if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.') return std::nullopt;
  e.bus = to_lower(inside);
  auto rest = m.substr(close + 1);
  if (!rest.starts_with(": ")) return std::nullopt;
  rest.remove_prefix(2);
  size_t digits = 0;
  while (digits < rest.size() && digits < 6 && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
  if (digits == 0) return std::nullopt;
  e.number = static_cast<int>(*parse_uint(rest.substr(0, digits)));
  rest.remove_prefix(digits);
  if (rest.starts_with(",")) rest.remove_prefix(1);
  e.detail = std::string(trim(rest));
  return e;
}

}  // namespace anygpu::health
