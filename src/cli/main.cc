#include "cli/cli.h"

int main(int argc, char** argv) {
  return anygpu::cli::run(argc, argv);
}
