// The worker's side: `anygpu __worker probe|health|sample PARENT_PID`, run only by Process::spawn.
// It needs neither the registry nor YAML: the request carries every name it loads.
#pragma once

namespace anygpu::worker {

// Entry point for argv[1] == "__worker". Never returns to the CLI.
[[noreturn]] void serve(int argc, char** argv);

}  // namespace anygpu::worker
