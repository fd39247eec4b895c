// The framework builds an image carries, read from its kept files (image/image_read.h) with
// the parsers anygpu reads an installed environment with (pyenv/python_env.h).
#pragma once

#include <string>
#include <vector>

#include "image/image_read.h"
#include "imagefit/image_fit.h"
#include "pyenv/python_env.h"

namespace anygpu {

// One Python environment inside the image: a site-packages directory holding torch.
struct ImagePythonEnv {
  PythonEnv env;         // torch and the distributions beside it
  std::string file;      // torch/version.py's path
  std::string layer;     // the layer it came from
  std::string site_dir;  // "usr/local/lib/python3.11/site-packages"
};

std::vector<ImagePythonEnv> image_python_envs(const image::ImageContents& image);
std::vector<ImageFramework> image_frameworks(const image::ImageContents& image);
std::vector<ImageCodeObject> image_code_objects(const image::ImageContents& image);

}  // namespace anygpu
