// The limits every input file is read within, whatever its format (the
// TOML files through toml_reader.h, the report's plan.json): a file's size,
// how deep its values nest, a string's length, and the range of a number.
// No measured or declared figure comes near them, and the planner and the
// report can add, multiply and divide numbers in them without overflow.

#ifndef PGLAYOUT_COMMON_INPUT_LIMITS_H_
#define PGLAYOUT_COMMON_INPUT_LIMITS_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace pglayout {

inline constexpr double kMaxFigure = 1e15;
inline constexpr uint64_t kMaxSize = uint64_t{1} << 60;  // 1 EiB
inline constexpr double kMaxDuration = 1e10;             // ~317 years
// An input file: a workload of a million relations fits several times.
inline constexpr uint64_t kMaxInputFileBytes = uint64_t{256} << 20;
// A string value (a name, a path, a reason).
inline constexpr size_t kMaxStringBytes = size_t{1} << 20;
// Arrays and tables (objects) inside each other; the files use 4 levels.
inline constexpr int kMaxNesting = 32;

// Why |v| is not a figure in [|min|, |max|] (finite, 0 or normal: a
// subnormal such as 1e-320 has an infinite reciprocal), or "" when it is.
std::string FigureProblem(double v, double min, double max);

// Why a string of |bytes| bytes is too long, or "" when it is not.
std::string StringProblem(size_t bytes);

}  // namespace pglayout

#endif  // PGLAYOUT_COMMON_INPUT_LIMITS_H_
