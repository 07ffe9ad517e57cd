// The real I/O engine: io_uring, O_DIRECT, registered buffers and a
// registered file. This header does not include <liburing.h>; only
// uring_engine.cc does.

#ifndef PGLAYOUT_PROBES_URING_ENGINE_H_
#define PGLAYOUT_PROBES_URING_ENGINE_H_

#include <cstdint>
#include <memory>

#include "common/status.h"
#include "probes/io_engine.h"

namespace pglayout::probes {

// Creates an engine for |fd|, which must be open O_RDWR|O_DIRECT and stay
// open while the engine lives (the engine does not own it). |alignment| is
// the direct-I/O offset and memory alignment. Returns Unavailable, with the
// reason, when io_uring cannot be used here (kernel.io_uring_disabled,
// seccomp, RLIMIT_MEMLOCK, old kernel), so the caller can fall back to the
// thread-pool engine.
Status MakeUringEngine(int fd, uint64_t alignment,
                       std::unique_ptr<IoEngine>* engine);

}  // namespace pglayout::probes

#endif  // PGLAYOUT_PROBES_URING_ENGINE_H_
