#include "launch/command_line.h"

#include <fstream>
#include <iterator>

#include "host/paths.h"

namespace anygpu {

std::optional<std::vector<std::string>> command_after_marker(const std::vector<std::string>& argv,
                                                             std::string_view subcommand) {
  size_t i = 1;
  while (i < argv.size() && argv[i] != subcommand) ++i;
  for (++i; i < argv.size(); ++i)
    if (argv[i] == "--") return std::vector<std::string>(argv.begin() + long(i) + 1, argv.end());
  return std::nullopt;
}

std::vector<std::string> own_argv() {
  std::ifstream in{std::string(paths::kSelfCmdline), std::ios::binary};
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i] == '\0') {
      out.push_back(all.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

}  // namespace anygpu
