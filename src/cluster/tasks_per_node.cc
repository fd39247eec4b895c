#include "cluster/tasks_per_node.h"

#include "util/strings.h"

namespace anygpu {

namespace {
constexpr uint64_t kMaxNodes = uint64_t{64} << 10;
constexpr uint64_t kMaxTasks = uint64_t{1} << 24;
}  // namespace

Result<std::vector<int>> parse_tasks_per_node(std::string_view text) {
  auto fail = [&](std::string_view item, std::string_view why) {
    return bad_input(cat({"tasks per node \"", text, "\": \"", item, "\" ", why}));
  };
  std::vector<int> counts;
  for (auto item : split(trim(text), ',')) {
    item = trim(item);
    std::string_view count_text = item;
    uint64_t repeat = 1;
    if (auto open = item.find('('); open != std::string_view::npos) {
      // "2(x3)": the count, then "(x" repeat ")"
      if (item.size() < open + 4 || item.substr(open, 2) != "(x" || item.back() != ')')
        return fail(item, "is not COUNT or COUNT(xREPEAT)");
      auto r = parse_uint(item.substr(open + 2, item.size() - open - 3));
      if (!r || *r < 1) return fail(item, "has no repeat count of at least 1");
      repeat = *r;
      count_text = item.substr(0, open);
    }
    auto n = parse_uint(count_text);
    if (!n || *n < 1 || *n > kMaxTasks) return fail(item, "has no task count of at least 1");
    if (repeat > kMaxNodes || counts.size() + repeat > kMaxNodes)
      return fail(item, "describes more than 65536 nodes");
    counts.insert(counts.end(), repeat, static_cast<int>(*n));
  }
  return counts;
}

}  // namespace anygpu
