// Remedies for what is too hot: a table too hot for any one volume, or one
// that keeps the busiest volume above the target. Both remedies are
// forecast as complete plans (hash partitions only; a stripe first, then
// partitions for what else stays too hot), ChooseRemedy picks one, and the
// search returns the chosen plan's partition counts and stripe.
// docs/planning.md#the-phases, phase 3.

#ifndef PGLAYOUT_PLANNER_REMEDY_SEARCH_H_
#define PGLAYOUT_PLANNER_REMEDY_SEARCH_H_

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "planner/layout.h"
#include "planner/plan_inputs.h"
#include "planner/remedy.h"
#include "planner/stripes.h"
#include "planner/wal_placement.h"

namespace pglayout::planner {

// One remedy as the plan forecast it: the complete plan that remedies what
// is too hot with hash partitions only ("hash_partition"), or with a stripe
// first ("stripe"; partitions for what else stays too hot).
struct RemedyForecast {
  std::string remedy;     // "hash_partition" or "stripe"
  std::string summary;    // what the plan does, in words
  bool possible = false;  // it can be built here (see blocker)
  std::string blocker;    // why not, when !possible
  int width = 0;          // stripe members (or, for one table, its partitions)
  std::vector<std::string> members;  // the stripe's volumes
  double worst_utilization = 0;      // the plan's worst data volume
  double mean_read_latency_us = 0;   // the plan's, over every read
  bool meets_target = false;         // worst not above the target
  bool helps = false;  // lowers the worst utilisation (or the table needs it)
};

// Which remedy, and why, from the two forecasts (pure; unit-tested):
//  1. one possible: that one; neither: "none";
//  2. --prefer partition|stripe: the preferred one, unless it does not meet
//     the target and the other does (or both miss and the other is lower
//     by more than kRemedyTolerance): then the other, saying why;
//  3. auto: the one that meets the target when only one does; else the
//     lower worst utilisation (by more than kRemedyTolerance), else the
//     lower mean read latency (by more than 5%), else the operational cost:
//     on a live server hash partitions (online, one table changes; a stripe
//     needs empty volumes and a rebuild, and losing one member loses every
//     object on it), for a new build a stripe (no schema change).
// A remedy that does not help is not chosen.
inline constexpr double kRemedyTolerance = 0.03;
struct RemedyChoice {
  std::string chosen;  // "hash_partition", "stripe" or "none"
  std::string reason;  // why, and why the other lost
};
RemedyChoice ChooseRemedy(const RemedyForecast& partition,
                          const RemedyForecast& stripe,
                          const std::string& prefer, bool live, double target);

// One partition count the search laid out, and the plan's worst volume
// with it.
struct CountForecast {
  int partitions = 0;
  double worst_utilization = 0;
};

// One relation that needed more than one volume, and what the plan did.
struct HotRelation {
  std::string table;
  double best_single_utilization = 0;  // on the best volume, alone
  bool must = false;                   // too hot for any one volume
  PartitionCheck partition;            // feasibility of hash partitioning
  int partitions = 0;                  // chosen k, 0 when not partitioned
  // The counts tried for it, in order, and the perfect spread's worst
  // volume they were judged against (docs/planning.md#partition-counts).
  std::vector<CountForecast> counts;
  double bound = 0;
  // Growth projected: twice the fewest count that does, so that the next
  // doubling is absorbed by moving whole partitions.
  bool room_to_grow = false;
  std::string stripe;  // stripe name when striped instead
  std::vector<std::string> stripe_members;
  std::string stripe_blocker;     // why a stripe was not possible
  std::string partition_blocker;  // why partitioning was not, when "none"
  std::string chosen;             // "hash_partition", "stripe", "none"
  std::string why;                // the trade-off in one sentence
};

// The two complete plans side by side, and the choice between them.
struct RemedyComparison {
  RemedyForecast partition;
  RemedyForecast stripe;
  RemedyChoice choice;
};

// What the search chose: how to lay the tables out.
struct RemedyPlan {
  std::vector<int> parts;             // per table: hash partitions, 1 = whole
  std::optional<StripeState> stripe;  // the data stripe, if built
  int stripe_owner = -1;              // the table it was built for
  std::vector<HotRelation> hot;       // their |why| set by ExplainRemedies
  std::optional<RemedyComparison> comparison;  // set when some table needed one
};

// Errors as LayOut's (the data does not fit even without a remedy).
Status SearchRemedies(const PlanInputs& in, const WalPlacement& wal,
                      RemedyPlan* plan);

// Sets each hot relation's |why|, its trade-off in one sentence, from the
// plan laid out (|layout| of |plan|).
void ExplainRemedies(const PlanInputs& in, const Layout& layout,
                     RemedyPlan* plan);

// "the plan with a stripe" or "the plan with hash partitions".
std::string RemedyName(const RemedyForecast& f);
// Its figures against |target|, or why it is not possible, for a verdict.
std::string RemedyFigures(const RemedyForecast& f, double target);

}  // namespace pglayout::planner

#endif  // PGLAYOUT_PLANNER_REMEDY_SEARCH_H_
