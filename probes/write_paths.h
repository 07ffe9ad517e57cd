// `pglayout probe --compare-buffered`: the same sequential write of the
// probe file through the page cache and with O_DIRECT, each timed until the
// data is durable, with the user and system CPU of each
// (docs/device-model.md#durable-writes: a buffered write is a loan; write()
// returns at memory speed and the device is paid at fdatasync, partly by
// kernel flusher threads whose CPU no process is charged for).
//
// Both halves overwrite the already filled probe file, so neither pays for
// block allocation. The buffered half leaves the file's pages in the page
// cache; they are dropped afterwards with posix_fadvise(POSIX_FADV_DONTNEED)
// (clean after the fdatasync, so the kernel does drop them), and the probe
// leaves the cache as it found it.

#ifndef PGLAYOUT_PROBES_WRITE_PATHS_H_
#define PGLAYOUT_PROBES_WRITE_PATHS_H_

#include <cstdint>
#include <string>

#include "common/model.h"
#include "common/status.h"
#include "probes/io_engine.h"

namespace pglayout::probes {

// How long each half may write before it stops and syncs what it wrote.
inline constexpr double kCompareFullSeconds = 30;
inline constexpr double kCompareQuickSeconds = 10;

// Writes [0, bytes) of the existing file |path| (rounded down to whole MiB)
// through the page cache: write() of 1 MiB incompressible blocks from one
// thread, then fdatasync and close, all timed. Stops writing after
// |max_seconds| and syncs what it wrote (out->bytes says how much). Then
// drops the file's pages from the page cache (not timed). Errors: IoError
// or the errno text (ENOSPC, EIO) naming the path; InvalidInput when
// |bytes| is below 1 MiB.
Status MeasureBufferedWrite(const std::string& path, uint64_t bytes,
                            double max_seconds, DurableWrite* out);

// Writes [0, bytes) through |engine| (the file's O_DIRECT engine) as the
// fill does (SequentialWriteJob: 1 MiB at depth 4, one closing fdatasync),
// timed until durable, with the process CPU around it.
Status MeasureDirectWrite(IoEngine* engine, uint64_t bytes, double max_seconds,
                          DurableWrite* out);

// Buffered first, then direct of exactly the bytes the buffered half wrote.
// |path| is the probe file behind |engine|, already filled.
Status CompareBufferedAndDirect(IoEngine* engine, const std::string& path,
                                uint64_t bytes, double max_seconds,
                                BufferedVsDirect* out);

}  // namespace pglayout::probes

#endif  // PGLAYOUT_PROBES_WRITE_PATHS_H_
