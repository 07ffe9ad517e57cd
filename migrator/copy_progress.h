// The progress line of a copy: rates averaged over the copy so far, pauses
// included, and an ETA from them that respects --max-rate. Pure: the caller
// passes the elapsed wall time, so tests need no clock.

#ifndef PGLAYOUT_MIGRATOR_COPY_PROGRESS_H_
#define PGLAYOUT_MIGRATOR_COPY_PROGRESS_H_

#include <cstdint>
#include <optional>

namespace pglayout::migrator {

struct CopyProgressInput {
  int64_t rows_done = 0;    // by this run, since |elapsed_s| began
  int64_t bytes_done = 0;   // by this run
  int64_t rows_before = 0;  // copied by earlier runs (a resumed copy)
  double rows_total = 0;    // estimated rows of the table
  double elapsed_s = 0;     // wall time of this run's copy, pauses included
  double cap_mbps = 0;      // --max-rate; 0 = none
};

struct CopyProgress {
  double fraction = 0;  // of the table, 0..1
  double rows_per_second = 0;
  double mbps = 0;              // MB/s of 10^6 bytes, pauses included
  std::optional<double> eta_s;  // unset until a rate is known
};

CopyProgress ComputeCopyProgress(const CopyProgressInput& in);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_COPY_PROGRESS_H_
