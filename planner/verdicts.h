// The plan's judgements of utilisation against the target, in one place, and
// a check that the plan's verdicts do not contradict each other or the
// forecast.
//
// A plan prints utilisations in whole percents; a judgement "above the 70%
// target" next to a figure printed as "70%" reads as a contradiction. So
// every judgement compares at the precision the plan prints: a utilisation
// is above the target when its whole percent is above the target's.
//
// The verdicts are computed once the plan is complete (PlanBuilder's last
// phase), from its final forecast: every volume the plan loads, the WAL's
// included, stripes as one volume (their members are not listed beside
// them), a stripe the plan builds with no "before".

#ifndef PGLAYOUT_PLANNER_VERDICTS_H_
#define PGLAYOUT_PLANNER_VERDICTS_H_

#include <string>
#include <vector>

#include "common/model.h"
#include "planner/pools.h"

namespace pglayout::planner {

struct PlanOutcome;

// The whole percent the plan prints for |fraction|: 0.7004 -> 70.
long PercentOf(double fraction);
// "70%", as PercentOf.
std::string Percent(double fraction);
// |utilization| is above |target| as printed: PercentOf(u) > PercentOf(t).
bool AboveTarget(double utilization, double target);

// The forecast entries above the plan's target, in forecast order.
std::vector<const ForecastEntry*> AboveTargetEntries(const Plan& plan);

// The pools the forecast has no entry for (the instance) above the target.
std::vector<const PoolForecast*> AboveTargetPools(
    const Plan& plan, const std::vector<PoolForecast>& pools);

// The one verdict on the fit: "fits: every volume ..." or "does not fit at
// the T target: a U, b V; ..." naming each forecast entry, and each pool of
// |pools| outside the forecast (the instance), above the target. |need| is
// appended to the latter (what it would take).
std::string FitVerdict(const Plan& plan, const std::vector<PoolForecast>& pools,
                       const std::string& need);

// How far the demand may grow on this plan: the forecast holds the observed
// demand fixed (a closed-loop client fills freed capacity at once, so the
// throughput after may rise instead of the utilisation falling), and this
// says at which multiple of it the busiest volume reaches the target and
// its capacity. "" when the plan loads no volume.
std::string HeadroomVerdict(const Plan& plan);

// Every contradiction found in |outcome|, in words; empty when none:
//  - a "fits" verdict with a forecast entry or the instance above the
//    target, or a "does not fit" verdict that names a volume within it or
//    misses one above it; a host verdict "within the instance's storage
//    caps" with the instance above the target, or one that says the caps
//    limit the plan with the instance within it;
//  - volumes on one device with different utilisations in the forecast;
//    "WAL: alone on X" while another volume on X's device carries data;
//  - a statement "X%, above the Y% target" with X <= Y, or "at X%" of a
//    remedy that "carries it" above the target;
//  - "it would need a stripe of about N" beside "even a stripe of M" with
//    N <= M;
//  - a stripe member in the forecast beside its stripe; a stripe the plan
//    builds with a "before" utilisation or latency;
//  - a hot relation whose chosen remedy is not the one its placement has,
//    or whose forecast comparison names a winner it did not choose.
// Used by the tests (examples and randomised inputs) and cheap enough for
// any caller.
std::vector<std::string> Contradictions(const PlanOutcome& outcome);

}  // namespace pglayout::planner

#endif  // PGLAYOUT_PLANNER_VERDICTS_H_
