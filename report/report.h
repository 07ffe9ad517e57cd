// `pglayout report`: one self-contained HTML page showing the volumes, the
// workload, the plan and the migration at a glance, for a DBA to decide
// from and to attach to a change request.
//
// The page has no external assets and no script: inline CSS and inline SVG
// only, and a Content-Security-Policy that forbids loading anything, so it
// renders the same offline, in a mail client or printed. It is well-formed
// XML as well as HTML (see report/markup.h); every text from the inputs is
// escaped.
//
// Each section appears when its input is given; any subset is allowed
// (none gives a page that says so).

#ifndef PGLAYOUT_REPORT_REPORT_H_
#define PGLAYOUT_REPORT_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/model.h"
#include "report/journal.h"

namespace pglayout::report {

// What plan.json holds beyond the Plan of common/model.h, as the page shows
// it: the two remedies weighed for a table too hot for one volume
// ("analysis.remedies", planner/plan_builder.h RemedyComparison) and the
// Citus distribution ("citus", planner/citus_plan.h). plan.toml carries
// them only as verdicts; the page reads them from plan.json.
struct RemedyView {
  std::string summary;  // what that plan does, in words
  bool possible = false;
  std::string blocker;               // why not, when !possible
  std::vector<std::string> members;  // a stripe's volumes
  double worst_utilization = 0;      // the plan's busiest data volume
  double mean_read_latency_us = 0;
  bool meets_target = false;
};
struct RemedyComparisonView {
  RemedyView partition;  // the plan with hash partitions
  RemedyView stripe;     // the plan with a stripe
  std::string chosen;    // "hash_partition", "stripe" or "none"
  std::string reason;    // why, and why the other lost
};

struct CitusNodeView {
  std::string name;  // "worker1", ..., "coordinator"
  uint64_t bytes = 0;
  double read_iops = 0;
  double write_iops = 0;
  double max_utilization = 0;         // busiest volume after
  double max_utilization_before = 0;  // today (0: a new host, or unknown)
  bool fits = false;
  std::string note;
};
struct CitusTableView {
  std::string name;
  std::string role;  // "distributed", "reference", "local"
  std::string column;
  int group = 0;  // 1-based; 0 = in none
  std::string colocate_with;
  uint64_t bytes = 0;
  std::string why;
  std::vector<std::string> cautions;
  std::vector<std::string> references;  // tables its foreign keys lead to
};
struct CitusGroupView {
  std::string anchor;
  std::string columns;  // "customer_id / id"
  std::vector<std::string> tables;
  uint64_t bytes_needed = 0;
  struct Edge {
    std::string from, to, constraint;
  };
  std::vector<Edge> edges;  // the foreign keys that co-locate it
};
struct CitusView {
  std::string reason;
  int workers = 0;
  std::string workers_reason;
  int shard_count = 0;
  std::string shard_count_reason;
  std::string worker_volumes;
  std::vector<CitusGroupView> groups;
  std::vector<CitusTableView> tables;
  std::vector<std::string> not_following;
  struct DroppedKey {
    std::string table, constraint, why;
  };
  std::vector<DroppedKey> dropped_keys;
  std::vector<CitusNodeView> workers_forecast;
  CitusNodeView coordinator;
  std::vector<std::string> verdicts;

  const CitusTableView* Find(const std::string& table) const;
};
// A table too hot for one volume ("analysis.hot"): the partition counts
// the plan tried for it, each with the plan's worst volume, against a
// perfect spread's (docs/planning.md#partition-counts).
struct HotTableView {
  std::string table;
  std::string chosen;  // "hash_partition", "stripe" or "none"
  int partitions = 0;  // chosen count, 0 when not partitioned
  struct Count {
    int partitions = 0;
    double worst_utilization = 0;
  };
  std::vector<Count> counts;  // in the order tried
  double bound = 0;           // the perfect spread's worst volume
  // Twice the count the spread needs, so that a doubling of the data moves
  // whole partitions onto new volumes instead of converting again.
  bool room_to_grow = false;
};
struct PlanDetails {
  std::optional<RemedyComparisonView> remedies;
  std::optional<CitusView> citus;
  std::vector<HotTableView> hot;
};

struct ReportInput {
  // Each pointer may be null; the object must outlive RenderPage().
  const VolumeSet* volumes = nullptr;
  const Workload* workload = nullptr;
  const Plan* plan = nullptr;
  // With |plan|, when it came from plan.json: the remedies compared and the
  // Citus distribution. Null for plan.toml (the page says where they are).
  const PlanDetails* plan_details = nullptr;
  const MigrationJournal* journal = nullptr;
  // The load of the workload observed after the migration, on the volumes
  // where its data now is (planner::LoadWhereItIs): with |plan|, the page
  // holds the plan's forecast to it ("Forecast against the layout").
  const std::vector<ForecastEntry>* measured_after = nullptr;
  // Where each input came from, shown in the page ("volumes.toml",
  // "db.example:5432/app as dba").
  std::string volumes_source;
  std::string workload_source;
  std::string plan_source;
  std::string journal_source;
  std::string after_source;  // the workload file observed after
  // Shown instead of the migration section's content when a journal was
  // asked for but could not be read (e.g. "no journal in this database").
  std::string journal_problem;
  // Shown in the header. The caller passes the time so that the same
  // inputs give the same bytes (tests compare pages).
  std::string generated_at;
  std::string version;  // pglayout's version
};

// The whole page, UTF-8.
std::string RenderPage(const ReportInput& input);

}  // namespace pglayout::report

#endif  // PGLAYOUT_REPORT_REPORT_H_
