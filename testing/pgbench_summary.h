// What pgbench prints at the end of a run, read back: its transactions per
// second and mean latency, for the benches and scenarios that start it.

#ifndef PGLAYOUT_TESTING_PGBENCH_SUMMARY_H_
#define PGLAYOUT_TESTING_PGBENCH_SUMMARY_H_

#include <string>

namespace pglayout {

struct PgbenchSummary {
  double tps = 0;         // 0 when the output has no "tps = "
  double latency_ms = 0;  // "latency average = N ms"; 0 when absent
};

// The run's totals: the first "tps = " and "latency average = " of
// |output| (pgbench repeats both per script after the totals).
PgbenchSummary ParsePgbenchSummary(const std::string& output);

}  // namespace pglayout

#endif  // PGLAYOUT_TESTING_PGBENCH_SUMMARY_H_
