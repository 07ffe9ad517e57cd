// "At a glance": the handful of figures a reader of a change request looks
// for before any chart.

#include <fmt/format.h>

#include <algorithm>

#include "common/units.h"
#include "report/format.h"
#include "report/sections.h"

namespace pglayout::report::internal {
namespace {

struct Tile {
  std::string value;
  std::string caption;
  bool alert = false;  // drawn with a vermillion edge and a "⚠"
};

void AddVolumes(const VolumeSet& set, std::vector<Tile>* tiles) {
  double capacity = 0;
  for (const Volume& v : set.volumes)
    capacity += static_cast<double>(v.capacity);
  tiles->push_back(
      {CountOf(static_cast<int64_t>(set.volumes.size()), "volume", "volumes"),
       Bytes(capacity) + " in all"});
}

void AddWorkload(const Workload& w, std::vector<Tile>* tiles) {
  const Relation* hottest = nullptr;
  for (const Relation& r : w.relations) {
    if (!hottest ||
        r.read_iops + r.write_iops > hottest->read_iops + hottest->write_iops) {
      hottest = &r;
    }
  }
  if (hottest) {
    tiles->push_back({Iops(hottest->read_iops + hottest->write_iops),
                      "hottest relation: " + hottest->name});
  }
  int64_t total = w.checkpoints.timed + w.checkpoints.requested;
  if (total > 0) {
    double share = static_cast<double>(w.checkpoints.requested) /
                   static_cast<double>(total);
    tiles->push_back(
        {Percent(share), "of checkpoints requested (forced)", share > 0.1});
  }
}

void AddPlan(const Plan& p, std::vector<Tile>* tiles) {
  auto busiest = [&](double ForecastEntry::*field) {
    double max = 0;
    for (const ForecastEntry& f : p.forecast) max = std::max(max, f.*field);
    return max;
  };
  if (!p.forecast.empty()) {
    double before = busiest(&ForecastEntry::utilization_before);
    double after = busiest(&ForecastEntry::utilization_after);
    tiles->push_back({Percent(before) + " → " + Percent(after),
                      "busiest volume before → after (target " +
                          Percent(p.target_utilization) + ")",
                      after > p.target_utilization});
  }
  int moved = 0;
  for (const Placement& pl : p.placements) {
    if (pl.strategy != Strategy::kStay) ++moved;
  }
  tiles->push_back({CountOf(moved, "relation", "relations"),
                    "moved or partitioned, " +
                        CountOf(static_cast<int64_t>(p.settings.size()),
                                "setting change", "setting changes")});
}

void AddJournal(const MigrationJournal& j, std::vector<Tile>* tiles) {
  int failed = 0;
  for (const JournalStep& s : j.steps) {
    failed += s.status == "failed" || s.status == "aborted";
  }
  std::string value = OrDash(j.status);
  if (failed > 0) {
    value += ", " + CountOf(failed, "step", "steps") + " failed";
  }
  tiles->push_back(
      {value, fmt::format("migration run {}: {} steps", j.run, j.steps.size()),
       failed > 0 || j.status != "done"});
}

}  // namespace

void RenderGlance(const ReportInput& input, Markup* out) {
  std::vector<Tile> tiles;
  if (input.volumes) AddVolumes(*input.volumes, &tiles);
  if (input.workload) AddWorkload(*input.workload, &tiles);
  if (input.plan) AddPlan(*input.plan, &tiles);
  if (input.journal) AddJournal(*input.journal, &tiles);
  if (tiles.empty()) return;
  out->Open("div", {{"class", "glance"}, {"aria-label", "At a glance"}});
  for (const Tile& t : tiles) {
    out->Open("div", t.alert ? std::vector<Attr>{{"class", "alert"}}
                             : std::vector<Attr>{});
    out->Element("b", (t.alert ? "⚠ " : "") + t.value);
    out->Element("span", t.caption);
    out->Close();
  }
  out->Close();
}

}  // namespace pglayout::report::internal
