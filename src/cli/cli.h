#pragma once

namespace anygpu::cli {

int run(int argc, char** argv);

}  // namespace anygpu::cli
