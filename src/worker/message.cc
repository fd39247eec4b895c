#include "worker/message.h"

#include "util/strings.h"

namespace anygpu::worker {

namespace {

bool plain(unsigned char c) {
  return c > 0x20 && c < 0x7f && c != '%';
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool valid_tag(std::string_view t) {
  if (t.empty() || t.size() > 32) return false;
  for (char c : t)
    if (!((c >= 'a' && c <= 'z') || c == '-')) return false;
  return true;
}

}  // namespace

std::string encode_field(std::string_view raw) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(raw.size());
  for (unsigned char c : raw) {
    if (plain(c)) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    }
  }
  return out;
}

Result<std::string> decode_field(std::string_view encoded) {
  if (encoded.empty()) return bad_input("empty field");
  std::string out;
  out.reserve(encoded.size());
  for (size_t i = 0; i < encoded.size(); ++i) {
    unsigned char c = encoded[i];
    if (c == '%') {
      int hi = i + 2 < encoded.size() ? hex_digit(encoded[i + 1]) : -1;
      int lo = i + 2 < encoded.size() ? hex_digit(encoded[i + 2]) : -1;
      if (hi < 0 || lo < 0) return bad_input("bad escape in field");
      unsigned char b = static_cast<unsigned char>(hi << 4 | lo);
      if (plain(b)) return bad_input("needless escape in field");  // one spelling per value
      out += static_cast<char>(b);
      i += 2;
    } else if (plain(c)) {
      out += static_cast<char>(c);
    } else {
      return bad_input("unescaped byte " + hex(c, 2) + " in field");
    }
  }
  return out;
}

namespace {

template <class Fields>
void append_line(std::string& text, std::string_view tag, const Fields& fields) {
  text += tag;
  for (std::string_view f : fields) {
    text += ' ';
    text += encode_field(f);
  }
  text += '\n';
}

}  // namespace

Writer& Writer::line(std::string_view tag, std::initializer_list<std::string_view> fields) {
  append_line(text_, tag, fields);
  return *this;
}

Writer& Writer::line(std::string_view tag, const std::vector<std::string>& fields) {
  append_line(text_, tag, fields);
  return *this;
}

Writer& Writer::header() {
  return line(kMagic, {std::to_string(kVersion)});
}

Records parse_records(std::string_view text) {
  Records out;
  if (text.size() > kMaxMessage) {
    out.error = "message exceeds " + std::to_string(kMaxMessage) + " bytes";
    return out;
  }
  size_t pos = 0, number = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    ++number;
    std::string where = "line " + std::to_string(number) + ": ";
    if (nl == std::string_view::npos) {
      if (text.size() - pos > kMaxLine) out.error = where + "line too long";
      out.unfinished = true;
      return out;
    }
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.size() > kMaxLine) {
      out.error = where + "line too long";
      return out;
    }
    Record r;
    r.line = number;
    size_t sp = line.find(' ');
    r.tag = std::string(line.substr(0, sp));
    if (!valid_tag(r.tag) && !(number == 1 && r.tag == kMagic)) {
      out.error =
          where + "bad tag '" + encode_field(line.substr(0, std::min<size_t>(sp, 40))) + "'";
      return out;
    }
    while (sp != std::string_view::npos) {
      size_t start = sp + 1;
      sp = line.find(' ', start);
      auto field = decode_field(line.substr(start, sp == std::string_view::npos ? sp : sp - start));
      if (!field) {
        out.error = where + field.error().message;
        return out;
      }
      r.fields.push_back(std::move(*field));
    }
    out.records.push_back(std::move(r));
  }
  return out;
}

std::optional<std::string> header_error(const Records& records) {
  if (records.records.empty())
    return records.error ? *records.error : std::string("no header line");
  const auto& h = records.records.front();
  if (h.tag != kMagic || h.fields.size() != 1) return "line 1: not an anygpu worker stream";
  if (h.fields[0] != std::to_string(kVersion))
    return "line 1: the worker speaks version " + encode_field(h.fields[0]) + ", this build " +
           std::to_string(kVersion);
  return std::nullopt;
}

std::string at(const Record& r, std::string_view what) {
  return cat({"line ", std::to_string(r.line), ": ", what});
}

bool ends_with_end_line(std::string_view buffer) {
  if (!buffer.ends_with(kEndLine)) return false;
  return buffer.size() == kEndLine.size() || buffer[buffer.size() - kEndLine.size() - 1] == '\n';
}

}  // namespace anygpu::worker
