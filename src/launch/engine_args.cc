#include "launch/engine_args.h"

#include <regex>

#include "util/strings.h"

namespace anygpu {

namespace {

std::string csv_field(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos && !field.starts_with(' '))
    return std::string(field);
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// distribution/reference's grammar (reference/regexp.go), written out as one ECMAScript regex.
const std::regex& reference_regex() {
  static const std::regex re([] {
    std::string component = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
    std::string domain_component = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
    std::string domain_name = domain_component + "(?:\\." + domain_component + ")*";
    std::string host = "(?:" + domain_name + "|\\[[a-fA-F0-9:]+\\])";
    std::string domain = host + "(?::[0-9]+)?";
    std::string name = "(?:" + domain + "/)?" + component + "(?:/" + component + ")*";
    std::string tag = "[\\w][\\w.-]{0,127}";
    std::string digest = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}";
    return "(" + name + ")(?::" + tag + ")?(?:@" + digest + ")?";
  }());
  return re;
}

}  // namespace

std::string bind_mount_arg(const MountEdit& mount) {
  std::string out = cat({"type=bind,", csv_field(cat({"src=", mount.host_path})), ",",
                         csv_field(cat({"dst=", mount.container_path}))});
  if (mount.read_only()) out += ",ro";
  return out;
}

std::optional<Error> check_image_reference(std::string_view ref, std::string_view flag) {
  auto bad = [&](std::string_view why) -> std::optional<Error> {
    return bad_input(cat({flag, " '", ref, "': ", why}));
  };
  if (ref.empty()) return bad("an image reference is required (not an empty string)");
  if (ref.front() == '-') return bad("an image reference, not an option (it starts with '-')");
  if (ref.size() > 1024 || has_control_char(ref)) return bad("not an image reference");
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_match(ref.begin(), ref.end(), m, reference_regex()))
    return bad("not an image reference ([registry[:port]/]name[:tag][@digest], lower-case name)");
  if (m[1].length() > 255) return bad("the name is longer than 255 characters");
  return std::nullopt;
}

std::optional<Error> check_container_user(std::string_view user, std::string_view flag) {
  static const std::regex re(
      "(?:[0-9]+|[A-Za-z_][A-Za-z0-9_.-]{0,31})"
      "(?::(?:[0-9]+|[A-Za-z_][A-Za-z0-9_.-]{0,31}))?");
  if (!std::regex_match(user.begin(), user.end(), re))
    return bad_input(cat({flag, " '", user, "': expected USER or UID, optionally :GROUP or :GID"}));
  return std::nullopt;
}

std::optional<Error> check_shm_size(std::string_view size, std::string_view flag) {
  static const std::regex re("[0-9]{1,18}[bkmgBKMG]?");
  if (!std::regex_match(size.begin(), size.end(), re) ||
      size.find_first_not_of("0bkmgBKMG") == std::string_view::npos)
    return bad_input(cat({flag, " '", size, "': expected a positive size such as 8g or 512m"}));
  return std::nullopt;
}

}  // namespace anygpu
