#include "imagefit/image_frameworks.h"

#include <regex>

#include "util/pep440.h"
#include "util/strings.h"

namespace anygpu {

namespace {

bool has_suffix(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

std::string dir_of(std::string_view p) {
  auto s = p.rfind('/');
  return s == std::string_view::npos ? std::string() : std::string(p.substr(0, s));
}

std::string layer_name(const image::ImageContents& image, size_t layer) {
  return layer < image.layers.size() ? image.layers[layer] : std::string();
}

// `__version__ = '2.6.0'` of torch_npu/version.py.
std::string npu_version(const std::string& text) {
  static const std::regex re(R"(__version__\s*(?::\s*\w+\s*)?=\s*['"]([^'"]+)['"])");
  std::smatch m;
  return std::regex_search(text, m, re) ? m[1].str() : std::string();
}

bool conda_of_interest(std::string_view name) {
  return name == "pytorch" || name == "pytorch-gpu" || name == "pytorch-cuda" ||
         name == "cuda-version" || name == "cudatoolkit" || name == "torch-npu";
}

// "pytorch-gpu-2.7.1-cuda129_mkl_h43a4b0b_304.json" -> name, version, build.
bool conda_record(std::string_view base, std::string* name, std::string* version) {
  if (!has_suffix(base, ".json")) return false;
  auto stem = base.substr(0, base.size() - 5);
  auto b = stem.rfind('-');
  if (b == std::string_view::npos || b == 0) return false;
  auto v = stem.rfind('-', b - 1);
  if (v == std::string_view::npos || v == 0) return false;
  *name = std::string(stem.substr(0, v));
  *version = cat({stem.substr(v + 1, b - v - 1), " ", stem.substr(b + 1)});
  return true;
}

}  // namespace

std::vector<ImagePythonEnv> image_python_envs(const image::ImageContents& image) {
  std::vector<ImagePythonEnv> out;
  for (const auto& [path, f] : image.files) {
    if (f.library || !(path == "torch/version.py" || has_suffix(path, "/torch/version.py")))
      continue;
    ImagePythonEnv e;
    e.file = "/" + path;
    e.layer = layer_name(image, f.layer);
    e.site_dir = dir_of(dir_of(path));
    e.env.python = "(image)";
    auto t = parse_torch_version_py(f.text);
    if (t.version.empty()) continue;
    t.dir = "/" + dir_of(path);
    e.env.torch = t;
    for (const auto& [p, g] : image.files)
      if (!g.library && dir_of(dir_of(p)) == e.site_dir && has_suffix(p, ".dist-info/METADATA"))
        if (auto d = parse_metadata(g.text)) {
          d->path = "/" + dir_of(p);
          e.env.dists.push_back(*d);
        }
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<ImageFramework> image_frameworks(const image::ImageContents& image) {
  std::vector<ImageFramework> out;
  for (const auto& e : image_python_envs(image))
    out.push_back(
        {"torch", e.env.torch->version, e.env.torch->cuda, e.env.torch->hip, e.file, e.layer});
  for (const auto& [path, f] : image.files) {
    if (f.library) continue;
    if (path == "torch_npu/version.py" || has_suffix(path, "/torch_npu/version.py")) {
      auto v = npu_version(f.text);
      if (!v.empty())
        out.push_back(
            {"torch_npu", v, std::nullopt, std::nullopt, "/" + path, layer_name(image, f.layer)});
    }
    // The vendor stacks installed in the image: ROCm's package version file, CANN's install info.
    if (path == "opt/rocm/.info/version") {
      auto v = std::string(trim(split_lines(f.text).empty() ? "" : split_lines(f.text)[0]));
      if (!v.empty())
        out.push_back(
            {"rocm", v, std::nullopt, std::nullopt, "/" + path, layer_name(image, f.layer)});
    }
    if (has_suffix(path, "/ascend_toolkit_install.info"))
      for (auto line : split_lines(f.text))
        if (trim(line).rfind("version=", 0) == 0)
          out.push_back({"cann", std::string(trim(trim(line).substr(8))), std::nullopt,
                         std::nullopt, "/" + path, layer_name(image, f.layer)});
    std::string name, version;
    auto base = std::string_view(path).substr(path.rfind('/') + 1);
    if (has_suffix(dir_of(path), "conda-meta") && conda_record(base, &name, &version) &&
        conda_of_interest(name))
      out.push_back(
          {name, version, std::nullopt, std::nullopt, "/" + path, layer_name(image, f.layer)});
  }
  return out;
}

std::vector<ImageCodeObject> image_code_objects(const image::ImageContents& image) {
  std::vector<ImageCodeObject> out;
  for (const auto& [path, f] : image.files)
    if (f.library) out.push_back({"/" + path, layer_name(image, f.layer), f.objects});
  return out;
}

}  // namespace anygpu
