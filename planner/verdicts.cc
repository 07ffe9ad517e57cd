#include "planner/verdicts.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <set>

#include "planner/plan_builder.h"

namespace pglayout::planner {

long PercentOf(double fraction) { return std::lround(fraction * 100); }

std::string Percent(double fraction) {
  return fmt::format("{}%", PercentOf(fraction));
}

bool AboveTarget(double utilization, double target) {
  return PercentOf(utilization) > PercentOf(target);
}

std::vector<const ForecastEntry*> AboveTargetEntries(const Plan& plan) {
  std::vector<const ForecastEntry*> over;
  for (const ForecastEntry& f : plan.forecast) {
    if (AboveTarget(f.utilization_after, plan.target_utilization)) {
      over.push_back(&f);
    }
  }
  return over;
}

std::vector<const PoolForecast*> AboveTargetPools(
    const Plan& plan, const std::vector<PoolForecast>& pools) {
  std::vector<const PoolForecast*> over;
  for (const PoolForecast& p : pools) {
    if (!p.in_forecast && AboveTarget(p.utilization, plan.target_utilization)) {
      over.push_back(&p);
    }
  }
  return over;
}

std::string FitVerdict(const Plan& plan, const std::vector<PoolForecast>& pools,
                       const std::string& need) {
  const std::vector<const ForecastEntry*> over = AboveTargetEntries(plan);
  const std::vector<const PoolForecast*> pools_over =
      AboveTargetPools(plan, pools);
  if (over.empty() && pools_over.empty()) {
    std::vector<std::string> also;
    for (const PoolForecast& p : pools) {
      if (p.kind == "measured") also.push_back("the volumes measured together");
      if (p.kind == "instance") also.push_back("the instance's storage caps");
    }
    return fmt::format(
        "fits: every volume the plan loads, the WAL's included{}, at or "
        "below the {} target",
        also.empty() ? "" : fmt::format(", and {}", fmt::join(also, " and ")),
        Percent(plan.target_utilization));
  }
  std::vector<std::string> names;
  for (const ForecastEntry* f : over) {
    names.push_back(
        fmt::format("{} {}", f->volume, Percent(f->utilization_after)));
  }
  for (const PoolForecast* p : pools_over) {
    names.push_back(fmt::format("{} {}", p->name, Percent(p->utilization)));
  }
  return fmt::format("does not fit at the {} target: {}{}",
                     Percent(plan.target_utilization), fmt::join(names, ", "),
                     need);
}

std::string HeadroomVerdict(const Plan& plan) {
  const ForecastEntry* busiest = nullptr;
  for (const ForecastEntry& f : plan.forecast) {
    if (busiest == nullptr ||
        f.utilization_after > busiest->utilization_after) {
      busiest = &f;
    }
  }
  if (busiest == nullptr || busiest->utilization_after <= 0) return "";
  const double u = busiest->utilization_after;
  const std::string lead = fmt::format(
      "demand: the forecast holds the observed demand fixed; on this plan "
      "the busiest volume, {} at {},",
      busiest->volume, Percent(u));
  if (u >= 1) {
    return lead +
           " cannot carry even that: the demand is unmet, by more "
           "than the forecast shows, until the plan's target is met";
  }
  if (AboveTarget(u, plan.target_utilization)) {
    return fmt::format(
        "{} is above the {} target already and reaches its "
        "capacity at {:.2f}x that demand",
        lead, Percent(plan.target_utilization), 1 / u);
  }
  return fmt::format(
      "{} reaches the {} target at {:.2f}x that demand and its capacity at "
      "{:.2f}x",
      lead, Percent(plan.target_utilization), plan.target_utilization / u,
      1 / u);
}

namespace {

bool IsStripe(const Plan& plan, const std::string& name) {
  return std::any_of(plan.stripes.begin(), plan.stripes.end(),
                     [&](const Stripe& s) { return s.name == name; });
}

const ForecastEntry* Find(const Plan& plan, const std::string& name) {
  for (const ForecastEntry& f : plan.forecast) {
    if (f.volume == name) return &f;
  }
  return nullptr;
}

void CheckFit(const PlanOutcome& o, std::vector<std::string>* out) {
  const Plan& plan = o.plan;
  std::vector<std::pair<std::string, double>> over;
  for (const ForecastEntry* f : AboveTargetEntries(plan)) {
    over.emplace_back(f->volume, f->utilization_after);
  }
  for (const PoolForecast* p : AboveTargetPools(plan, o.pools)) {
    over.emplace_back(p->name, p->utilization);
  }
  for (const std::string& v : plan.verdicts) {
    if (v.starts_with("fits:") && !over.empty()) {
      out->push_back(fmt::format("'{}' while {} is at {}", v, over[0].first,
                                 Percent(over[0].second)));
    }
    if (!v.starts_with("does not fit at")) continue;
    if (over.empty()) {
      out->push_back(fmt::format("'{}' while every volume is within it", v));
    }
    for (const auto& [name, u] : over) {
      const std::string named = fmt::format(" {} {}", name, Percent(u));
      if (v.find(named) == std::string::npos) {
        out->push_back(fmt::format("'{}' does not name{}", v, named));
      }
    }
  }
  const bool fits = std::any_of(
      plan.verdicts.begin(), plan.verdicts.end(), [](const std::string& v) {
        return v.starts_with("fits:") || v.starts_with("does not fit at");
      });
  if (!fits) out->push_back("no verdict on the fit");
}

// The host verdict agrees with the instance's pool.
void CheckHost(const PlanOutcome& o, std::vector<std::string>* out) {
  bool over = false;
  for (const PoolForecast* p : AboveTargetPools(o.plan, o.pools)) {
    over = over || p->kind == "instance";
  }
  for (const std::string& v : o.plan.verdicts) {
    if (!v.starts_with("host:")) continue;
    if (v.starts_with("host: within") == over) {
      out->push_back(fmt::format("'{}' while the instance is {} the target", v,
                                 over ? "above" : "within"));
    }
  }
}

// Volumes on one device show one utilisation; the WAL is alone on its
// hardware only when no other volume there carries data.
void CheckDevices(const PlanOutcome& o, std::vector<std::string>* out) {
  const Plan& plan = o.plan;
  const bool wal_alone = std::any_of(
      plan.verdicts.begin(), plan.verdicts.end(), [&](const std::string& v) {
        return v.starts_with("WAL: alone on " + plan.wal_volume);
      });
  for (const PoolForecast& p : o.pools) {
    if (!p.in_forecast) continue;
    const bool has_wal =
        std::count(p.volumes.begin(), p.volumes.end(), plan.wal_volume) > 0;
    for (const std::string& name : p.volumes) {
      const ForecastEntry* f = Find(plan, name);
      if (f == nullptr) continue;
      if (Percent(f->utilization_after) != Percent(p.utilization)) {
        out->push_back(fmt::format("{} is at {} but its {} is at {}", name,
                                   Percent(f->utilization_after), p.name,
                                   Percent(p.utilization)));
      }
      const bool loaded = name != plan.wal_volume &&
                          (f->read_iops > 0 || f->checkpoint_write_iops > 0);
      if (wal_alone && has_wal && loaded) {
        out->push_back(fmt::format(
            "the WAL is 'alone' on {} while {} on the same device ({}) "
            "carries data",
            plan.wal_volume, name, p.name));
      }
    }
  }
}

// "N%, above the M% target" and "N% busy, above the M% target" with N <= M;
// "N% ... at or below the M% target" is not checked (a list).
void CheckPercentStatements(const Plan& plan, std::vector<std::string>* out) {
  static const std::regex above(
      R"((\d+)%( busy)?( alone)?,? above the (\d+)% target)");
  for (const std::string& v : plan.verdicts) {
    for (std::sregex_iterator it(v.begin(), v.end(), above), end; it != end;
         ++it) {
      const long n = std::stol((*it)[1]), m = std::stol((*it)[4]);
      if (n <= m) {
        out->push_back(fmt::format("'{}' says {}% is above {}%", v, n, m));
      }
    }
  }
}

// "about N volumes" needed beside "even a stripe of M" with N <= M.
void CheckStripeSizing(const Plan& plan, std::vector<std::string>* out) {
  static const std::regex even(R"(even a stripe of (\d+) )");
  static const std::regex about(R"(need a stripe of about (\d+) )");
  for (const std::string& v : plan.verdicts) {
    std::smatch e, a;
    if (std::regex_search(v, e, even) && std::regex_search(v, a, about) &&
        std::stol(a[1]) <= std::stol(e[1])) {
      out->push_back(fmt::format("'{}': needing {} contradicts even {}", v,
                                 a[1].str(), e[1].str()));
    }
  }
}

void CheckStripes(const Plan& plan, std::vector<std::string>* out) {
  for (const Stripe& s : plan.stripes) {
    for (const std::string& m : s.members) {
      if (Find(plan, m) != nullptr) {
        out->push_back(fmt::format(
            "stripe member {} is in the forecast beside its stripe {}", m,
            s.name));
      }
    }
    const ForecastEntry* f = Find(plan, s.name);
    if (f == nullptr) {
      out->push_back(fmt::format("stripe {} has no forecast", s.name));
    } else if (f->utilization_before != 0 || f->read_latency_us_before != 0) {
      out->push_back(fmt::format(
          "stripe {} does not exist yet but has a 'before' forecast", s.name));
    }
  }
}

// "a stripe of N volumes ... carries it at X%" (the WAL's and a hot
// table's): N is the stripe's width and X its forecast, within the target.
void CheckCarries(const PlanOutcome& o, std::vector<std::string>* out) {
  const Plan& plan = o.plan;
  static const std::regex carries(
      R"(a stripe of (\d+) volumes[^;]*? carries it at (\d+)%)");
  for (const std::string& v : plan.verdicts) {
    std::smatch m;
    if (!std::regex_search(v, m, carries)) continue;
    if (std::stol(m[2]) > PercentOf(plan.target_utilization)) {
      out->push_back(fmt::format("'{}' carries it above the target", v));
    }
    const long width = std::stol(m[1]);
    const bool known = std::any_of(
        plan.stripes.begin(), plan.stripes.end(), [&](const Stripe& s) {
          const ForecastEntry* f = Find(plan, s.name);
          return static_cast<long>(s.members.size()) == width && f &&
                 Percent(f->utilization_after) == m[2].str() + "%";
        });
    if (!known) {
      out->push_back(
          fmt::format("'{}': no stripe of {} members forecast at {}%", v, width,
                      m[2].str()));
    }
  }
}

void CheckHot(const PlanOutcome& o, std::vector<std::string>* out) {
  const Plan& plan = o.plan;
  for (const HotRelation& h : o.hot) {
    const Placement* p = nullptr;
    for (const Placement& q : plan.placements) {
      if (q.relation == h.table) p = &q;
    }
    const bool partitioned = p && p->strategy == Strategy::kHashPartition;
    if ((h.chosen == "hash_partition") != partitioned) {
      out->push_back(fmt::format("{}: chosen {} but placed {}", h.table,
                                 h.chosen,
                                 p ? StrategyName(p->strategy) : "nowhere"));
    }
    if (h.chosen == "stripe" && !IsStripe(plan, h.stripe)) {
      out->push_back(fmt::format("{}: chosen stripe {} is not in the plan",
                                 h.table, h.stripe));
    }
  }
  if (!o.remedies) return;
  const RemedyComparison& c = *o.remedies;
  const RemedyChoice again = ChooseRemedy(c.partition, c.stripe, plan.prefer,
                                          o.live, plan.target_utilization);
  if (again.chosen != c.choice.chosen) {
    out->push_back(
        fmt::format("chose {} but the forecasts side by side "
                    "choose {}",
                    c.choice.chosen, again.chosen));
  }
  const RemedyForecast& won =
      c.choice.chosen == "stripe" ? c.stripe : c.partition;
  if (c.choice.chosen != "none" &&
      PercentOf(won.worst_utilization) != PercentOf(o.max_utilization)) {
    out->push_back(fmt::format(
        "the chosen plan's forecast ({}) is not the plan's ({})",
        Percent(won.worst_utilization), Percent(o.max_utilization)));
  }
}

}  // namespace

std::vector<std::string> Contradictions(const PlanOutcome& outcome) {
  std::vector<std::string> out;
  CheckFit(outcome, &out);
  CheckHost(outcome, &out);
  CheckDevices(outcome, &out);
  CheckPercentStatements(outcome.plan, &out);
  CheckStripeSizing(outcome.plan, &out);
  CheckStripes(outcome.plan, &out);
  CheckCarries(outcome, &out);
  CheckHot(outcome, &out);
  return out;
}

}  // namespace pglayout::planner
