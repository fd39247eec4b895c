#include <string_view>

#include "cli/cli.h"
#include "cli/worker_serve.h"
#include "worker/locate.h"

int main(int argc, char** argv) {
  // The vendor-library worker is this same binary, re-executed by the parent before anything
  // else runs (no registry, no option parsing): see src/worker/.
  if (argc > 1 && std::string_view(argv[1]) == "__worker") anygpu::worker::serve(argc, argv);
  anygpu::worker::use_self_as_worker();
  return anygpu::cli::run(argc, argv);
}
