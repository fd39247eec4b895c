#include "cdi/cdi_names.h"

#include "util/strings.h"

namespace anygpu {

namespace {
bool letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool alnum(char c) {
  return letter(c) || (c >= '0' && c <= '9');
}

std::optional<std::string> label_error(std::string_view what, std::string_view s) {
  if (s.empty()) return cat({what, " is empty"});
  if (!letter(s.front())) return cat({what, " \"", s, "\" must start with a letter"});
  if (!alnum(s.back())) return cat({what, " \"", s, "\" must end with a letter or digit"});
  for (char c : s)
    if (!alnum(c) && c != '_' && c != '-' && c != '.')
      return cat({what, " \"", s, "\" may hold only letters, digits, '_', '-' and '.'"});
  return std::nullopt;
}
}  // namespace

std::optional<std::string> kind_error(std::string_view kind) {
  auto slash = kind.find('/');
  if (slash == std::string_view::npos)
    return cat({"kind \"", kind, "\" is not VENDOR/CLASS (e.g. \"nvidia.com/gpu\")"});
  if (auto e = label_error("kind vendor", kind.substr(0, slash))) return e;
  return label_error("kind class", kind.substr(slash + 1));
}

std::optional<std::string> device_name_error(std::string_view name) {
  if (name.empty()) return std::string("device name is empty");
  if (!alnum(name.front()) || !alnum(name.back()))
    return cat({"device name \"", name, "\" must start and end with a letter or digit"});
  for (char c : name)
    if (!alnum(c) && c != '_' && c != '-' && c != '.' && c != ':')
      return cat(
          {"device name \"", name, "\" may hold only letters, digits, '_', '-', '.' and ':'"});
  return std::nullopt;
}

}  // namespace anygpu
