#include "imagefit/require_cuda.h"

#include "util/strings.h"
#include "util/version.h"

namespace anygpu {

namespace {

std::optional<std::string> env_of(const std::vector<std::string>& env, std::string_view name) {
  for (const auto& e : env)
    if (e.size() > name.size() && e.compare(0, name.size(), name) == 0 && e[name.size()] == '=')
      return e.substr(name.size() + 1);
  return std::nullopt;
}

// "key>=value" and the other operators dsl.c knows.
Tristate condition(std::string_view c, const RequireFacts& f) {
  static constexpr std::string_view kOps[] = {">=", "<=", "!=", "=", ">", "<"};
  for (auto op : kOps) {
    auto at = c.find(op);
    if (at == std::string_view::npos) continue;
    auto key = to_lower(trim(c.substr(0, at)));
    auto want = std::string(trim(c.substr(at + op.size())));
    const std::optional<std::string>* have = key == "cuda"     ? &f.cuda
                                             : key == "driver" ? &f.driver
                                             : key == "arch"   ? &f.arch
                                             : key == "brand"  ? &f.brand
                                                               : nullptr;
    if (!have) return Tristate::yes;  // unknown properties are skipped, as the toolkit does
    if (!*have) return Tristate::unknown;
    int cmp = 0;
    if (key == "brand") {
      cmp = to_lower(**have) == to_lower(want) ? 0 : 1;
      if (op != "=" && op != "!=") return Tristate::unknown;
    } else {
      auto r = compare_versions(**have, want);
      if (!r) return Tristate::unknown;
      cmp = *r;
    }
    bool ok = op == ">="   ? cmp >= 0
              : op == "<=" ? cmp <= 0
              : op == "!=" ? cmp != 0
              : op == "="  ? cmp == 0
              : op == ">"  ? cmp > 0
                           : cmp < 0;
    return ok ? Tristate::yes : Tristate::no;
  }
  return Tristate::unknown;  // no operator: unreadable
}

}  // namespace

Tristate evaluate_require(std::string_view expression, const RequireFacts& facts,
                          std::string* first_unmet) {
  Tristate any = Tristate::no;
  bool seen = false;
  for (auto term : split(expression, ' ')) {
    if (trim(term).empty()) continue;
    seen = true;
    Tristate all = Tristate::yes;
    for (auto c : split(term, ',')) {
      if (trim(c).empty()) continue;
      auto t = condition(c, facts);
      if (t == Tristate::no && all != Tristate::no && first_unmet && first_unmet->empty())
        *first_unmet = std::string(trim(c));
      if (t < all) all = t;
    }
    if (all > any) any = all;
  }
  return seen ? any : Tristate::yes;
}

RequireVerdict judge_cuda_requirements(const std::vector<std::string>& env,
                                       const RequireFacts& facts) {
  RequireVerdict out;
  if (auto d = env_of(env, "NVIDIA_DISABLE_REQUIRE")) {
    auto v = to_lower(trim(*d));
    if (v == "1" || v == "t" || v == "true") return out;
  }
  std::vector<std::string> exprs;
  for (const auto& e : env)
    if (e.rfind("NVIDIA_REQUIRE_", 0) == 0 && e.rfind("NVIDIA_REQUIRE_JETPACK", 0) != 0 &&
        e.find('=') != std::string::npos)
      exprs.push_back(e.substr(e.find('=') + 1));
  if (exprs.empty()) {
    // A legacy image: only CUDA_VERSION, read as cuda>=MAJOR.MINOR.
    auto cv = env_of(env, "CUDA_VERSION");
    if (!cv) return out;
    auto parts = split(*cv, '.');
    if (parts.size() < 2) return out;
    exprs.push_back(cat({"cuda>=", parts[0], ".", parts[1]}));
  }
  for (const auto& e : exprs) {
    std::string unmet;
    auto t = evaluate_require(e, facts, &unmet);
    if (t < out.met) {
      out.met = t;
      out.expression = e;
      out.failed = unmet;
    }
  }
  return out;
}

}  // namespace anygpu
