#include "host/etc_group.h"

#include <algorithm>
#include <cstdint>

#include "util/strings.h"

namespace anygpu {

Result<std::map<std::string, int>> parse_group_ids(std::string_view text, const std::string& file,
                                                   const std::vector<std::string>& wanted) {
  std::map<std::string, int> out;
  size_t line_no = 0;
  for (auto line : split_lines(text)) {
    ++line_no;
    auto where = [&] { return cat({file, ":", std::to_string(line_no), ": "}); };
    if (trim(line).empty() || line.front() == '#') continue;
    // NIS compat entries ("+", "-name") carry no gid of their own.
    if (line.front() == '+' || line.front() == '-') continue;
    auto fields = split(line, ':');
    if (fields.size() != 4)
      return bad_input(cat({where(), "expected name:password:gid:members, found ",
                            std::to_string(fields.size()), " fields"}));
    auto gid = parse_uint(fields[2]);
    if (!gid || *gid > 4294967294ull)
      return bad_input(cat({where(), "group id '", fields[2], "' is not a number"}));
    std::string name(fields[0]);
    if (std::find(wanted.begin(), wanted.end(), name) == wanted.end()) continue;
    if (*gid > static_cast<uint64_t>(INT32_MAX))
      return bad_input(cat({where(), "group id ", fields[2], " is out of range"}));
    out.emplace(name, static_cast<int>(*gid));  // the first entry wins, as for getgrnam
  }
  return out;
}

}  // namespace anygpu
