// What the report reads off a volume's measured curves: the knee of the
// random-read curve, the stripe-wide read size, and where a planned load
// sits on the curve. Pure functions of the model, so they are unit-tested
// with hand-made curves.

#ifndef PGLAYOUT_REPORT_CURVES_H_
#define PGLAYOUT_REPORT_CURVES_H_

#include <cstddef>
#include <cstdint>
#include <optional>

#include "common/model.h"

namespace pglayout::report {

// The knee of |v|'s random-read curve as an index into v.randread: the
// point at depth v.readers_to_saturate when `probe` recorded one (the
// nearest depth not below it), otherwise the first point that reaches 90%
// of the curve's highest IOPS, past which more depth buys latency, not
// throughput. nullopt when the curve is empty.
std::optional<size_t> KneeIndex(const Volume& v);

// The random-read IOPS at saturation: v.read_iops when declared, else the
// highest IOPS on the measured curve, else 0.
double SaturationIops(const Volume& v);

// Median latency at |iops| on the measured curve, interpolated linearly
// between points (and clamped to the ends). nullopt without a curve.
std::optional<double> MedianLatencyAt(const Volume& v, double iops);

}  // namespace pglayout::report

#endif  // PGLAYOUT_REPORT_CURVES_H_
