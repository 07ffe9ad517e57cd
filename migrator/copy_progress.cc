#include "migrator/copy_progress.h"

#include <algorithm>

namespace pglayout::migrator {

CopyProgress ComputeCopyProgress(const CopyProgressInput& in) {
  CopyProgress p;
  const double total = std::max(in.rows_total, 1.0);
  const double done = static_cast<double>(in.rows_before + in.rows_done);
  p.fraction = std::min(1.0, done / total);
  if (in.elapsed_s <= 0 || in.rows_done <= 0) return p;
  p.rows_per_second = static_cast<double>(in.rows_done) / in.elapsed_s;
  p.mbps = static_cast<double>(in.bytes_done) / 1e6 / in.elapsed_s;
  if (p.fraction >= 1) return p;
  // The average so far can only overstate what a cap allows (its first
  // batch runs before any pause): the ETA takes the lower of the two.
  double rows_per_second = p.rows_per_second;
  if (in.cap_mbps > 0 && p.mbps > in.cap_mbps) {
    rows_per_second *= in.cap_mbps / p.mbps;
  }
  p.eta_s = (total - done) / rows_per_second;
  return p;
}

}  // namespace pglayout::migrator
