// `anygpu __worker sample PARENT_PID`: a long-lived metrics worker (src/worker/sample_protocol.h).
#pragma once

namespace anygpu::worker {

// Returns when the parent closes the request channel or the library is not usable.
void serve_sample();

}  // namespace anygpu::worker
