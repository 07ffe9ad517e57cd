#include "testing/pgbench_summary.h"

#include <cstdlib>

namespace pglayout {

PgbenchSummary ParsePgbenchSummary(const std::string& output) {
  auto number_after = [&](const std::string& key) {
    size_t at = output.find(key);
    if (at == std::string::npos) return 0.0;
    return std::atof(output.c_str() + at + key.size());
  };
  PgbenchSummary s;
  s.tps = number_after("tps = ");
  s.latency_ms = number_after("latency average = ");
  return s;
}

}  // namespace pglayout
