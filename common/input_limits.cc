#include "common/input_limits.h"

#include <fmt/format.h>

#include <cmath>

namespace pglayout {

std::string FigureProblem(double v, double min, double max) {
  if (!std::isfinite(v)) return "must be a finite number";
  if (std::fpclassify(v) == FP_SUBNORMAL) {
    return fmt::format("{} is too small to be a figure (write 0 for none)", v);
  }
  if (v < min) {
    return min == 0 ? fmt::format("must not be negative (got {})", v)
                    : fmt::format("must be at least {} (got {})", min, v);
  }
  if (v > max) return fmt::format("must be at most {:g} (got {})", max, v);
  return "";
}

std::string StringProblem(size_t bytes) {
  if (bytes <= kMaxStringBytes) return "";
  return fmt::format("is {} bytes long; a string may have at most {} (1 MiB)",
                     bytes, kMaxStringBytes);
}

}  // namespace pglayout
