#include "cluster/k8s_names.h"

namespace anygpu::k8s_names {

namespace {
bool lower_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
}  // namespace

bool is_alnum(char c) {
  return lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

bool is_dns1123_label(std::string_view s) {
  if (s.empty() || s.size() > 63 || !lower_alnum(s.front()) || !lower_alnum(s.back())) return false;
  for (char c : s)
    if (!lower_alnum(c) && c != '-') return false;
  return true;
}

bool is_dns1035_label(std::string_view s) {
  return is_dns1123_label(s) && s.front() >= 'a' && s.front() <= 'z';
}

bool is_dns1123_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  for (size_t start = 0;;) {
    auto dot = s.find('.', start);
    if (!is_dns1123_label(s.substr(start, dot == std::string_view::npos ? dot : dot - start)))
      return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

bool is_label_name(std::string_view s) {
  if (s.empty() || s.size() > 63 || !is_alnum(s.front()) || !is_alnum(s.back())) return false;
  for (char c : s)
    if (!is_alnum(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

bool is_label_key(std::string_view s) {
  auto slash = s.find('/');
  if (slash == std::string_view::npos) return is_label_name(s);
  return is_dns1123_subdomain(s.substr(0, slash)) && is_label_name(s.substr(slash + 1));
}

bool is_label_value(std::string_view s) {
  return s.empty() || is_label_name(s);
}

std::string label_prefix_problem(std::string_view prefix) {
  if (prefix.size() > 253) return "longer than 253 characters";
  if (!is_dns1123_subdomain(prefix))
    return "not a DNS subdomain (lower-case letters, digits, '-' inside dot-separated parts, "
           "each starting and ending with a letter or digit)";
  return {};
}

std::string extended_resource_problem(std::string_view name) {
  auto slash = name.find('/');
  if (slash == std::string_view::npos)
    return "not a vendor's resource: it needs a domain prefix, e.g. nvidia.com/gpu";
  if (name.find("kubernetes.io/") != std::string_view::npos)
    return "names a Kubernetes resource (the *kubernetes.io/ namespace), not a device plugin's";
  if (name.starts_with("requests.")) return "starts with \"requests.\", which quotas reserve";
  auto prefix = name.substr(0, slash);
  auto rest = name.substr(slash + 1);
  if (!is_label_name(rest))
    return "the part after '/' must be 1-63 letters, digits, '-', '_' or '.', starting and ending "
           "with a letter or digit";
  // Quotas name it "requests.<name>", which must still be a qualified name.
  if (!is_dns1123_subdomain(prefix) || prefix.size() + 9 > 253)
    return "the part before '/' must be a DNS subdomain of at most 244 characters";
  return {};
}

}  // namespace anygpu::k8s_names
