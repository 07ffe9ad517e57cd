// What every engine needs to shape a job the same way: where the next I/O
// goes and what a written block contains.

#ifndef PGLAYOUT_PROBES_IO_PATTERN_H_
#define PGLAYOUT_PROBES_IO_PATTERN_H_

#include <cstddef>
#include <cstdint>

#include "probes/io_engine.h"

namespace pglayout::probes {

// SplitMix64: tiny, fast and statistically good enough for offsets and
// incompressible data; deterministic from its seed so runs repeat.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, bound); bound > 0. The modulo bias is below 2^-40 for
  // any file the probe makes.
  uint64_t Below(uint64_t bound) { return Next() % bound; }

 private:
  uint64_t state_;
};

// Offsets of a job's I/Os: uniform random over the region's blocks, or
// consecutive blocks wrapping at the region's end. Not thread-safe.
class OffsetGenerator {
 public:
  explicit OffsetGenerator(const IoJob& job);
  uint64_t Next();

 private:
  Access access_;
  uint64_t base_;
  uint64_t block_;
  uint64_t blocks_;
  uint64_t cursor_ = 0;
  Random random_;
};

// When the I/Os of a paced job (IoJob::rate_iops > 0) are due: a Poisson
// process of that rate (exponential gaps), as the requests of many
// independent sessions arrive, deterministic from the seed. Not
// thread-safe.
class PacedSchedule {
 public:
  PacedSchedule(double rate_iops, uint64_t seed);
  // The next I/O's due time, in seconds from the job's start; each call
  // advances the schedule.
  double Next();

 private:
  double rate_;
  double due_ = 0;
  Random random_;
};

// Fills |size| bytes at |data| with pseudo-random bytes: incompressible, so
// compressing or deduplicating storage cannot flatter the results.
void FillRandom(void* data, size_t size, uint64_t seed);

// Makes a buffer about to be written unique: writes |serial| into the first
// 8 bytes of every 4 KiB of it. Reusing a few buffers for a whole fill would
// otherwise hand a deduplicating device the same blocks again and again.
void StampBlocks(void* data, size_t size, uint64_t serial);

}  // namespace pglayout::probes

#endif  // PGLAYOUT_PROBES_IO_PATTERN_H_
