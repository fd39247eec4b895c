// Kubernetes name rules, as the API server applies them (k8s.io/apimachinery
// pkg/util/validation/validation.go and pkg/api/validate/content, kubernetes/kubernetes@
// 008b3652959ca58af8be3fb5b6ecfe9ae7638282): what anygpu writes must pass them, and a bad flag is
// refused here rather than by the cluster.
#pragma once

#include <string>
#include <string_view>

namespace anygpu::k8s_names {

// [A-Za-z0-9]: what a label name and value must start and end with.
bool is_alnum(char c);
// [a-z]([-a-z0-9]*[a-z0-9])?, at most 63: Service-like names. The training operator names
// a PyTorchJob's Services after the job, so its name must be one.
bool is_dns1035_label(std::string_view s);
// [a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 63.
bool is_dns1123_label(std::string_view s);
// DNS-1123 labels joined by '.', at most 253: a label key's prefix.
bool is_dns1123_subdomain(std::string_view s);
// The name part of a label key: ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], at most 63.
bool is_label_name(std::string_view s);
// prefix/name or name.
bool is_label_key(std::string_view s);
// Empty, or a label name's pattern and length: a label's value, and a taint's
// (pkg/apis/core/validation validateTaints: the key a label key, the value a label value).
bool is_label_value(std::string_view s);

// Why `name` cannot be a container's extended resource (a device plugin's, e.g.
// nvidia.com/gpu; empty when it can).
// kubernetes/kubernetes@78fc8e44052f699bf598f84b697b41e5a328c9c5 pkg/apis/core/helper/helpers.go
// IsExtendedResourceName: prefixed, not in *kubernetes.io/, not "requests.", and "requests." + name
// must still be a qualified name (a prefix of at most 253).
std::string extended_resource_problem(std::string_view name);

// Why `prefix` cannot prefix label keys (empty when it can).
std::string label_prefix_problem(std::string_view prefix);

}  // namespace anygpu::k8s_names
