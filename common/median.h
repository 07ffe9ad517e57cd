// The median of a list of measurements: the middle value, or the mean of
// the two middle values when the count is even; 0 for an empty list.

#ifndef PGLAYOUT_COMMON_MEDIAN_H_
#define PGLAYOUT_COMMON_MEDIAN_H_

#include <vector>

namespace pglayout {

double Median(std::vector<double> values);

}  // namespace pglayout

#endif  // PGLAYOUT_COMMON_MEDIAN_H_
