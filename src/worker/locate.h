// Which executable serves as the vendor-library worker (`anygpu __worker …`). Decided once per
// process, in this order, without ever falling back to loading a library in-process:
//   1. the running `anygpu` binary itself (/proc/self/exe), when the CLI declared itself with
//      use_self_as_worker() at start;
//   2. $ANYGPU_WORKER, an absolute path to an anygpu binary (embedders, tests);
//   3. `anygpu` in the directory of the shared object that holds this code (libanygpu.so in a
//      build tree or beside the Python package), then, when that directory is PREFIX/<libdir>,
//      PREFIX/<bindir>/anygpu (an installed library finds the CLI installed with it, whatever
//      the prefix);
//   4. the install location compiled in (ANYGPU_INSTALL_WORKER, <bindir>/anygpu).
// None found: an error naming what was tried; the caller reports every library as `error`
// with that message.
#pragma once

#include <string>

#include "util/result.h"

namespace anygpu::worker {

void use_self_as_worker();
Result<std::string> worker_executable();

}  // namespace anygpu::worker
