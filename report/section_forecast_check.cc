// "Forecast against the layout": each volume's forecast utilisation and
// read latency after the plan, next to the same figures for the workload
// observed once the plan was carried out (docs/fidelity.md).

#include <fmt/format.h>

#include <cmath>

#include "report/format.h"
#include "report/sections.h"

namespace pglayout::report::internal {
namespace {

const ForecastEntry* Find(const std::vector<ForecastEntry>& entries,
                          const std::string& volume) {
  for (const ForecastEntry& e : entries) {
    if (e.volume == volume) return &e;
  }
  return nullptr;
}

// "+4 points", "-12 points", "0 points".
std::string Points(double measured, double forecast) {
  long points = std::lround(100 * (measured - forecast));
  return fmt::format("{}{} points", points > 0 ? "+" : "", points);
}

}  // namespace

void RenderForecastCheckSection(const ReportInput& input, Markup* out) {
  OpenSection("forecast-check", "Forecast against the layout",
              input.after_source, out);
  out->Element(
      "p",
      "The plan's forecast for each volume, next to the load of the workload "
      "observed after the migration, where its data now is, through the same "
      "device model. A large difference means the model missed something: "
      "the demand changed, or the page cache, the checkpoints or the WAL "
      "behave otherwise than it assumes.");
  std::vector<Row> rows;
  double worst = 0;
  for (const ForecastEntry& forecast : input.plan->forecast) {
    const ForecastEntry* now = Find(*input.measured_after, forecast.volume);
    if (now == nullptr) continue;  // a stripe the plan proposed
    worst = std::max(
        worst, std::abs(now->utilization_before - forecast.utilization_after));
    rows.push_back({forecast.volume, Percent(forecast.utilization_after),
                    Percent(now->utilization_before),
                    Points(now->utilization_before, forecast.utilization_after),
                    Latency(forecast.read_latency_us_after),
                    Latency(now->read_latency_us_before)});
  }
  RenderTable("Utilisation and read latency per volume, forecast and observed",
              {{"Volume"},
               {"Forecast", true},
               {"Observed", true},
               {"Difference", true},
               {"Forecast read latency", true},
               {"Observed read latency", true}},
              rows, out);
  if (worst > 0.10) {
    RenderCallout("warning",
                  fmt::format("A volume is {:.0f} points from its forecast: "
                              "more than the 10 points the model aims at.",
                              100 * worst),
                  out);
  }
  out->Close();
}

}  // namespace pglayout::report::internal
