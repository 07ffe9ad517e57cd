// The fallback engine: one thread per queue slot, each issuing synchronous
// pread/pwrite (and fdatasync) on the O_DIRECT file. Used when io_uring is
// unavailable; results say so, because threads cost more CPU per I/O and
// add scheduling delay to every latency.
//
// This is also exactly how PostgreSQL backends read with io_method=sync:
// N processes with one synchronous 8 KiB read each.

#ifndef PGLAYOUT_PROBES_THREAD_POOL_ENGINE_H_
#define PGLAYOUT_PROBES_THREAD_POOL_ENGINE_H_

#include <cstdint>
#include <memory>

#include "probes/io_engine.h"

namespace pglayout::probes {

// |fd| as for MakeUringEngine: O_RDWR|O_DIRECT, not owned.
std::unique_ptr<IoEngine> MakeThreadPoolEngine(int fd, uint64_t alignment);

}  // namespace pglayout::probes

#endif  // PGLAYOUT_PROBES_THREAD_POOL_ENGINE_H_
