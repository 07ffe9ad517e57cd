#include "planner/remedy_search.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "common/growth.h"
#include "planner/forecast.h"
#include "planner/verdicts.h"

namespace pglayout::planner {
namespace {

// Partitioning is a schema change: to balance (rather than because a table
// is too hot for any volume) it is worth it only for a table that is a real
// part of the busiest volume's load.
constexpr double kMinSplitLoad = 0.2;
// A split must lower the worst utilisation by this much to be worth a
// schema change.
constexpr double kWorthwhile = 1e-3;
// Partition counts whose worst utilisation is this close count as equal.
constexpr double kSpreadTolerance = 0.03;
constexpr int kMaxRemedies = 16;
// Partition counts tried beyond the least that carries a table, up to one
// per device.
constexpr int kExtraPartitions = 6;
// The most partitions of one table (each is a relation with its indexes;
// Citus's default is 32 shards): past one per device, counts up to this
// are tried, several partitions to a device.
constexpr int kMaxPartitions = 64;
// A count is good enough when the plan's worst volume with it is within
// this of the bound (a perfect spread of every byte), or at the target.
constexpr double kBoundTolerance = 0.05;

// Every stripe width up to this is tried; past it, widths an eighth apart
// (and all of the group): each try is a full layout, and trying every width
// of a thousand volumes took minutes (docs/planning.md#many-volumes).
constexpr size_t kEveryStripeWidth = 16;

// The widths tried for a stripe of a group of |n| volumes: 2 to
// kEveryStripeWidth, then each an eighth more than the last, then n.
std::vector<size_t> StripeWidths(size_t n) {
  std::vector<size_t> widths;
  for (size_t k = 2; k <= n; k = k < kEveryStripeWidth ? k + 1 : k + k / 8) {
    widths.push_back(k);
  }
  if (n >= 2 && widths.back() != n) widths.push_back(n);
  return widths;
}

// "hash partitions: worst volume 66%, mean read 1004 us" for the reasons.
std::string Figures(const RemedyForecast& f) {
  return fmt::format(
      "{} ({}) keeps the worst volume at {}, mean read {:.0f} us",
      RemedyName(f), f.summary, Percent(f.worst_utilization),
      f.mean_read_latency_us);
}

bool BetterStripe(const RemedyForecast& c, const RemedyForecast& b) {
  if (c.meets_target != b.meets_target) return c.meets_target;
  if (std::fabs(c.worst_utilization - b.worst_utilization) > kRemedyTolerance) {
    return c.worst_utilization < b.worst_utilization;
  }
  return c.width < b.width;
}

// What one mode of the search ended with.
struct Snapshot {
  RemedyPlan plan;
  RemedyForecast forecast;
  bool built_stripe = false;
  int partitioned = 0;
  std::string stripe_blocker;     // the first hot table's, when none
  std::string partition_blocker;  // likewise
};

// The search: one mode at a time lays out candidates over the same state
// (partition counts, the stripe), keeping what helps.
class RemedySearch {
 public:
  RemedySearch(const PlanInputs& in, const WalPlacement& wal)
      : in_(in), wal_(wal), opt_(in.options) {}

  // Both remedies, each as a complete plan: hash partitions only, and a
  // stripe first (partitions for what else stays too hot, since a stripe is
  // built once). The two forecasts are compared by ChooseRemedy and the
  // winner kept; when no table needed a remedy, the plans are one.
  Status Run(RemedyPlan* out) {
    Snapshot partition_plan, stripe_plan;
    PGLAYOUT_RETURN_IF_ERROR(Remedies("hash_partition", &partition_plan));
    PGLAYOUT_RETURN_IF_ERROR(Remedies("stripe", &stripe_plan));
    if (partition_plan.plan.hot.empty()) {
      *out = partition_plan.plan;
      return Status::Ok();
    }
    RemedyComparison c;
    c.partition = partition_plan.forecast;
    c.stripe = stripe_plan.forecast;
    if (!stripe_plan.built_stripe) {
      c.stripe.possible = false;
      c.stripe.blocker = stripe_plan.stripe_blocker;
    }
    if (partition_plan.partitioned == 0) {
      c.partition.possible = false;
      c.partition.blocker = partition_plan.partition_blocker;
    }
    c.choice = ChooseRemedy(c.partition, c.stripe, opt_.prefer, in_.live,
                            opt_.target_utilization);
    *out = c.choice.chosen == "stripe" ? stripe_plan.plan : partition_plan.plan;
    out->comparison = c;
    return Status::Ok();
  }

 private:
  Status Lay() { return LayOut(in_, wal_, parts_, stripe_, &layout_); }

  // Too hot for any one volume first; then, to bring the busiest volumes
  // down, the heaviest table on a volume above the target, then the
  // heaviest anywhere (moving it may free room where it is needed);
  // -1 when nothing is left to try.
  int NextCandidate() const {
    int best = -1;
    double best_load = 0;
    for (size_t t = 0; t < in_.tables.size(); ++t) {
      if (parts_[t] > 1 || tried_[t]) continue;
      const double load = BestSingle(in_, layout_, static_cast<int>(t));
      if (AboveTarget(load, opt_.target_utilization) && load > best_load) {
        best = static_cast<int>(t);
        best_load = load;
      }
    }
    if (best >= 0) return best;
    const PlaceResult& result = layout_.result;
    for (bool over_only : {true, false}) {
      for (size_t i = 0; i < layout_.items.size(); ++i) {
        const PlaceItem& item = layout_.items[i];
        const int b = result.bin_of[i];
        if (item.parts > 1 || tried_[item.table]) continue;
        if (over_only && result.utilization[b] <= opt_.target_utilization) {
          continue;
        }
        const double load = Load(item, layout_.bins[b]);
        if (load >= kMinSplitLoad && load > best_load) {
          best = item.table;
          best_load = load;
        }
      }
      if (best >= 0) return best;
    }
    return -1;
  }

  Status Remedies(const std::string& mode, Snapshot* out) {
    mode_ = mode;
    parts_.assign(in_.tables.size(), 1);
    tried_.assign(in_.tables.size(), false);
    stripe_.reset();
    stripe_owner_ = -1;
    hot_.clear();
    PGLAYOUT_RETURN_IF_ERROR(Lay());
    const double before = layout_.result.max_utilization;
    for (int round = 0; round < kMaxRemedies; ++round) {
      if (!AboveTarget(layout_.result.max_utilization,
                       opt_.target_utilization)) {
        break;
      }
      const int t = NextCandidate();
      if (t < 0) break;
      tried_[t] = true;
      PGLAYOUT_RETURN_IF_ERROR(Remedy(t));
    }
    out->plan.parts = parts_;
    out->plan.stripe = stripe_;
    out->plan.stripe_owner = stripe_owner_;
    out->plan.hot = hot_;
    out->built_stripe = stripe_.has_value();
    std::vector<std::string> parts;
    for (const HotRelation& h : hot_) {
      if (h.chosen == "hash_partition") {
        ++out->partitioned;
        parts.push_back(fmt::format("{} in {}", h.table, h.partitions));
      }
      if (out->stripe_blocker.empty()) out->stripe_blocker = h.stripe_blocker;
      if (out->partition_blocker.empty() && !h.partition.feasible()) {
        out->partition_blocker =
            fmt::format("{}: {}", h.table, h.partition.blockers[0]);
      }
    }
    if (out->partition_blocker.empty()) {
      out->partition_blocker = "partitioning does not lower the worst volume";
    }
    if (out->stripe_blocker.empty()) {
      out->stripe_blocker = "a stripe does not lower the worst volume";
    }
    RemedyForecast& f = out->forecast;
    f.remedy = mode;
    f.possible = true;
    Measure(false, before, &f);
    if (stripe_) {
      f.width = static_cast<int>(stripe_->members.size());
      for (int v : stripe_->members) {
        f.members.push_back(in_.volumes.volumes[v].name);
      }
    }
    f.summary = fmt::format(
        "{}{}{}",
        stripe_ ? fmt::format("a stripe of {} ({}) for {}", f.width,
                              fmt::join(f.members, ", "),
                              in_.tables[stripe_owner_].table)
                : "",
        stripe_ && !parts.empty() ? ", " : "",
        parts.empty()
            ? ""
            : "hash partitions: " + fmt::format("{}", fmt::join(parts, ", ")));
    if (f.summary.empty()) f.summary = "no remedy";
    return Status::Ok();
  }

  // The current layout as |f|'s forecast.
  void Measure(bool must, double before, RemedyForecast* f) const {
    const double worst = layout_.result.max_utilization;
    f->worst_utilization = worst;
    f->mean_read_latency_us = layout_.MeanReadLatencyUs();
    f->meets_target = !AboveTarget(worst, opt_.target_utilization);
    f->helps = must || worst < before - kWorthwhile;
  }

  // What the plan looks like without a remedy for |t|: its worst
  // utilisation then.
  Status WithoutRemedy(int t, double* before) {
    SetParts(1);
    if (stripe_ && stripe_owner_ == t) stripe_.reset();
    PGLAYOUT_RETURN_IF_ERROR(Lay());
    *before = layout_.result.max_utilization;
    return Status::Ok();
  }

  // Whether every data bin has the same model: counts past one per device
  // are then multiples of the devices (each takes as many).
  bool AlikeBins() const {
    for (const PlaceBin& b : layout_.bins) {
      const DeviceModel& m = *b.model;
      const DeviceModel& o = *layout_.bins[0].model;
      if (m.read_capacity() != o.read_capacity() ||
          m.write_capacity() != o.write_capacity() ||
          m.capacity_bytes() != o.capacity_bytes() || b.pool >= 0) {
        return false;
      }
    }
    return true;
  }

  // The counts to try, in order: from what the table needs at the target
  // up to one per device (a few past the least, then all n), then, when
  // |signed_n| is positive, past n up to kMaxPartitions (multiples of n
  // when the volumes are alike).
  std::vector<int> Counts(int k_min, int signed_n) const {
    const int n = std::abs(signed_n);
    std::vector<int> counts;
    for (int k = k_min; k <= n; ++k) {
      if (k <= k_min + kExtraPartitions || k == n) counts.push_back(k);
    }
    const bool alike = AlikeBins();
    for (int k = n + 1; signed_n > 0 && k <= kMaxPartitions; ++k) {
      if (!alike || k % n == 0) counts.push_back(k);
    }
    return counts;
  }

  // The worst volume a count must reach to be good enough: within
  // kBoundTolerance of the bound, and no higher than the target while the
  // bound is within it (docs/planning.md#partition-counts).
  double Goal(double bound) const {
    const double target = opt_.target_utilization;
    const double near = bound + kBoundTolerance;
    return bound <= target ? std::min(near, target) : near;
  }

  // Hash partitioning of |t|: the fewest partitions (of Counts) whose plan
  // reaches Goal; when none does, the lowest worst utilisation, the fewest
  // on ties. Then, up to one per device, the widest count that still meets
  // the target within kSpreadTolerance of the chosen one: the number of hash
  // partitions is fixed once created (changing it rewrites the table), so
  // spreading over every volume that carries it well is cheap insurance for
  // growth, as ASM spreads over every disk of a group. Each count tried is
  // kept in |h|. Leaves the plan without a remedy for |t|.
  Status EvaluatePartition(int t, HotRelation* h, double before,
                           RemedyForecast* f) {
    f->remedy = "hash_partition";
    h->counts.clear();
    // One partition per device at least: two on one device spread nothing.
    const int n = layout_.DataDevices();
    if (!h->partition.feasible()) {
      f->blocker = h->partition.blockers[0];
      return Status::Ok();
    }
    if (n < 2) {
      f->blocker = "there are fewer than two data volumes on distinct devices";
      return Status::Ok();
    }
    h->bound = FiguresOf(in_, layout_).bound.max_utilization;
    const double goal = Goal(h->bound);
    const int k_min =
        std::clamp(static_cast<int>(std::ceil(BestSingle(in_, layout_, t) /
                                              opt_.target_utilization)),
                   2, n);
    std::map<int, double> peak;
    int chosen = -1, best = -1;
    // Past one per device only for a table too hot for any one volume: to
    // balance, one partition per device is as far as a schema change goes.
    for (int k : Counts(k_min, h->must ? n : -n)) {
      SetParts(k);
      if (!Lay().ok()) continue;
      peak[k] = layout_.result.max_utilization;
      h->counts.push_back({k, peak[k]});
      if (best < 0 || peak[k] < peak[best] - kWorthwhile) best = k;
      if (peak[k] <= goal + 1e-9) {
        chosen = k;
        break;
      }
    }
    if (chosen < 0) chosen = best;
    if (chosen < 0) {
      f->blocker = "its partitions find no room on distinct volumes";
      SetParts(1);
      return Lay();
    }
    const int widest = std::min({n, k_min + kExtraPartitions, 2 * k_min});
    const double chosen_peak = peak[chosen];
    for (int k = chosen + 1; k <= widest; ++k) {
      if (chosen_peak > opt_.target_utilization) break;
      if (peak.count(k) == 0) {
        SetParts(k);
        if (!Lay().ok()) continue;
        peak[k] = layout_.result.max_utilization;
        h->counts.push_back({k, peak[k]});
      }
      const double u = peak[k];
      if (u <= opt_.target_utilization && u <= chosen_peak + kSpreadTolerance) {
        chosen = k;
      }
    }
    h->room_to_grow = false;
    const TableDemand& d = in_.tables[t];
    if (h->must && d.bytes_needed > d.bytes && 2 * chosen <= kMaxPartitions &&
        peak[chosen] <= std::min(goal, opt_.target_utilization) + 1e-9) {
      // Growth projected: twice the count, if it does as well, lets the
      // next doubling be absorbed by moving whole partitions.
      const int twice = 2 * chosen;
      if (peak.count(twice) == 0) {
        SetParts(twice);
        if (Lay().ok()) {
          peak[twice] = layout_.result.max_utilization;
          h->counts.push_back({twice, peak[twice]});
        }
      }
      if (peak.count(twice) &&
          peak[twice] <= std::min(goal, opt_.target_utilization) + 1e-9) {
        chosen = twice;
        h->room_to_grow = true;
      }
    }
    SetParts(chosen);
    PGLAYOUT_RETURN_IF_ERROR(Lay());
    f->possible = true;
    f->width = chosen;
    Measure(h->must, before, f);
    SetParts(1);
    return Lay();
  }

  // Stripes built from empty, alike data volumes (the widths of
  // StripeWidths, up to all of a group), the best forecast kept: meeting the
  // target first, then the lower worst utilisation (beyond kRemedyTolerance),
  // then the fewest members (fewer empty volumes, a smaller loss when one
  // fails). Leaves the plan without a remedy for |t|.
  Status EvaluateStripe(int t, const HotRelation& h, double before,
                        RemedyForecast* f, std::vector<int>* members) {
    f->remedy = "stripe";
    if (stripe_) {
      f->blocker = fmt::format(
          "a stripe was already built from the empty volumes, for {}",
          in_.tables[stripe_owner_].table);
      return Status::Ok();
    }
    bool any = false;
    for (const std::vector<int>& g : AlikeEmptyGroups(in_, wal_.Volumes())) {
      for (size_t k : StripeWidths(g.size())) {
        any = true;
        std::vector<int> candidate(g.begin(), g.begin() + k);
        stripe_ = MakeStripe(in_, "data_stripe", candidate);
        stripe_owner_ = t;
        if (!Lay().ok()) continue;
        RemedyForecast c = *f;
        c.possible = true;
        c.width = static_cast<int>(k);
        Measure(h.must, before, &c);
        if (!f->possible || BetterStripe(c, *f)) {
          *f = c;
          *members = candidate;
        }
      }
    }
    stripe_.reset();
    if (!f->possible) {
      f->blocker =
          any ? "no stripe of the empty volumes leaves room for the data"
              : "a stripe needs at least two empty, alike volumes (building "
                "one destroys what is on its members)";
    }
    for (int v : *members) f->members.push_back(in_.volumes.volumes[v].name);
    return Lay();
  }

  // The remedy of the current mode for |t|: a stripe (in stripe mode,
  // while none is built), else hash partitions; kept when it lowers the
  // worst utilisation or the table needs it.
  Status Decide(int t, HotRelation* h) {
    double before = 0;
    PGLAYOUT_RETURN_IF_ERROR(WithoutRemedy(t, &before));
    RemedyForecast stripe, partition;
    std::vector<int> members;
    if (mode_ == "stripe") {
      PGLAYOUT_RETURN_IF_ERROR(
          EvaluateStripe(t, *h, before, &stripe, &members));
    } else {
      stripe.blocker =
          "not in the plan with hash partitions (see both plans below)";
    }
    h->stripe_blocker = stripe.blocker;
    if (stripe.possible && stripe.helps) {
      stripe_ = MakeStripe(in_, "data_stripe", members);
      stripe_owner_ = t;
      h->chosen = "stripe";
      h->stripe = stripe_->name;
      h->stripe_members = stripe.members;
      return Lay();
    }
    PGLAYOUT_RETURN_IF_ERROR(EvaluatePartition(t, h, before, &partition));
    if (partition.possible && partition.helps) {
      SetParts(partition.width);
      h->chosen = "hash_partition";
      h->partitions = parts_[t];
      return Lay();
    }
    h->chosen = "none";
    h->partition_blocker = partition.possible
                               ? "partitioning does not lower the worst volume"
                               : partition.blocker;
    return Status::Ok();
  }

  // The tables a remedy for |t| changes together: the hash partitions of
  // t's parent that are still whole and on a volume above the target (a
  // split of one alone leaves its siblings' volumes as busy, so it would
  // never lower the worst volume), t among them; else t alone.
  std::vector<int> GroupOf(int t) const {
    const Relation* facts = in_.tables[t].facts;
    if (facts == nullptr || !IsLeafPartition(*facts) ||
        PartitionParent(*facts).empty()) {
      return {t};
    }
    std::vector<int> group = {t};
    for (size_t i = 0; i < layout_.items.size(); ++i) {
      const PlaceItem& item = layout_.items[i];
      const int u = item.table;
      const Relation* other = in_.tables[u].facts;
      if (u == t || item.parts > 1 || tried_[u] || other == nullptr ||
          PartitionParent(*other) != PartitionParent(*facts) ||
          layout_.result.utilization[layout_.result.bin_of[i]] <=
              opt_.target_utilization) {
        continue;
      }
      group.push_back(u);
    }
    return group;
  }

  void SetParts(int k) {
    for (int u : group_) parts_[u] = k;
  }

  Status Remedy(int t) {
    group_ = GroupOf(t);
    HotRelation h;
    h.table = in_.tables[t].table;
    h.best_single_utilization = BestSingleVolume(in_, layout_, t);
    h.must = AboveTarget(h.best_single_utilization, opt_.target_utilization);
    auto key = opt_.keys.find(h.table);
    const Relation& facts = *in_.tables[t].facts;
    // A partition gets partitions of its own by its parent's key (a split),
    // any other table a conversion.
    h.partition =
        IsLeafPartition(facts)
            ? CheckHashSplit(facts, in_.workload.Find(PartitionParent(facts)),
                             in_.workload.Find(facts.partition_of), in_.version)
            : CheckHashPartitioning(facts,
                                    key == opt_.keys.end()
                                        ? std::vector<std::string>{}
                                        : key->second,
                                    in_.version);
    const std::string unread = FactsNotReadReason(facts, in_.workload);
    if (!unread.empty()) h.partition = PartitionCheck{{}, {unread}, {}};
    const std::string view =
        DependentMatview(*in_.tables[t].facts, in_.workload);
    if (!view.empty()) h.partition.blockers.push_back(MatviewReason(view));
    PGLAYOUT_RETURN_IF_ERROR(Decide(t, &h));
    if (h.chosen == "hash_partition") {
      // Its siblings split alike, each with its own entry.
      for (size_t i = 1; i < group_.size(); ++i) {
        const int u = group_[i];
        tried_[u] = true;
        HotRelation sibling = h;
        sibling.table = in_.tables[u].table;
        sibling.best_single_utilization = BestSingleVolume(in_, layout_, u);
        hot_.push_back(std::move(sibling));
      }
    }
    group_ = {};
    if (h.must || h.chosen != "none") hot_.push_back(std::move(h));
    return Status::Ok();
  }

  const PlanInputs& in_;
  const WalPlacement& wal_;
  const PlanOptions& opt_;
  std::string mode_;         // the remedies tried: "hash_partition", "stripe"
  std::vector<int> parts_;   // per table
  std::vector<bool> tried_;  // per table
  std::vector<int> group_;   // the tables of the remedy under way (GroupOf)
  std::optional<StripeState> stripe_;
  int stripe_owner_ = -1;  // the table stripe_ was built for
  std::vector<HotRelation> hot_;
  Layout layout_;  // of parts_ and stripe_
};

// The bin of each partition of |table| in |layout|, partition j at j.
std::vector<int> PartitionBins(const PlanInputs& in, const Layout& layout,
                               const std::string& table) {
  std::vector<int> bins;
  for (size_t i = 0; i < layout.items.size(); ++i) {
    const PlaceItem& item = layout.items[i];
    if (item.parts > 1 && in.tables[item.table].table == table) {
      bins.push_back(layout.result.bin_of[i]);
    }
  }
  return bins;
}

// "2 on v1, 2 on v2, 3 on v3": how many of the partitions in |bins| each
// volume of |layout| holds, and on how many volumes they are (|volumes|).
std::string PartitionsPerVolume(const PlanInputs& in, const Layout& layout,
                                const std::optional<StripeState>& stripe,
                                const std::vector<int>& bins, int* volumes) {
  std::map<int, int> per_bin;
  for (int bin : bins) ++per_bin[bin];
  std::vector<std::string> parts;
  for (const auto& [bin, count] : per_bin) {
    parts.push_back(
        fmt::format("{} on {}", count, BinName(in, layout, stripe, bin)));
  }
  *volumes = static_cast<int>(per_bin.size());
  return fmt::format("{}", fmt::join(parts, ", "));
}

// Why this partition count: the rule, and the plan's worst volume at each
// count tried ("3 -> 75%, 4 -> 72%, 5 -> 61%"), the middle of a long list
// left out.
std::string CountReason(const HotRelation& h, double target) {
  std::vector<std::string> curve;
  const size_t n = h.counts.size();
  for (size_t i = 0; i < n; ++i) {
    if (n > 10 && i == 4) curve.push_back("...");
    if (n > 10 && i >= 4 && i + 4 < n) continue;
    curve.push_back(fmt::format("{} -> {}", h.counts[i].partitions,
                                Percent(h.counts[i].worst_utilization)));
  }
  return fmt::format(
      "{} partitions: the fewest whose plan keeps the worst volume within {} "
      "points of a perfect spread ({}){}, else the lowest; the worst volume "
      "at each count tried: {}",
      h.partitions, static_cast<int>(std::lround(kBoundTolerance * 100)),
      Percent(h.bound),
      h.bound <= target
          ? fmt::format(" and at most the {} target", Percent(target))
          : "",
      fmt::join(curve, ", "));
}

// With growth projected and twice the count chosen: what a doubling takes,
// partitions named (common/growth.h).
std::string GrowthReason(const PlanInputs& in, const Layout& layout,
                         const std::optional<StripeState>& stripe,
                         const HotRelation& h, const std::vector<int>& bins) {
  if (!h.room_to_grow) return "";
  std::vector<std::string> volume_of;
  for (int bin : bins) volume_of.push_back(BinName(in, layout, stripe, bin));
  const std::string moves = DoublingMovesText(MovesForDoubling(volume_of));
  return fmt::format(
      "; room to grow: the data grows over the horizon, so {} partitions "
      "(twice the count the spread needs): {}, whole and online, with no "
      "conversion again",
      h.partitions,
      moves.empty() ? "later, more volumes can take some of them"
                    : "when it doubles, " + moves);
}

// The demand of |h| when it is a partition split by its parent's key, else
// null.
const TableDemand* SplitOf(const PlanInputs& in, const HotRelation& h) {
  for (const TableDemand& d : in.tables) {
    if (d.table == h.table && d.facts != nullptr && IsLeafPartition(*d.facts)) {
      return &d;
    }
  }
  return nullptr;
}

// The hot relation's trade-off in one sentence, from the complete plan.
std::string Explain(const PlanInputs& in, const Layout& layout,
                    const std::optional<StripeState>& stripe,
                    const HotRelation& h) {
  const double target = in.options.target_utilization;
  std::string need =
      h.must ? fmt::format(
                   "alone it would keep the best volume {} busy, above the "
                   "{} target",
                   Percent(h.best_single_utilization), Percent(target))
             : "it keeps the busiest volume above the target";
  std::string what;
  const TableDemand* split = SplitOf(in, h);
  int volumes = 0;
  const std::vector<int> bins = PartitionBins(in, layout, h.table);
  const std::string where =
      h.chosen == "hash_partition"
          ? PartitionsPerVolume(in, layout, stripe, bins, &volumes)
          : "";
  if (h.chosen == "hash_partition" && split != nullptr) {
    what = fmt::format(
        "split into {} partitions of its own by ({}), its parent {}'s key, "
        "spread over {} volumes ({}), each with its indexes; online: {} "
        "copied with change capture, then the parent is locked only for the "
        "swap (DETACH and ATTACH, which scan nothing), and the parent and "
        "its other partitions stay as they are; {}",
        h.partitions, fmt::join(h.partition.key, ", "),
        PartitionParent(*split->facts), volumes, where,
        HumanSize(static_cast<double>(split->bytes)), CountReason(h, target));
  } else if (h.chosen == "hash_partition") {
    what = fmt::format(
               "{} hash partitions on ({}) spread it over {} volumes ({}), "
               "each with "
               "its indexes, online, and only this table changes; {}",
               h.partitions, fmt::join(h.partition.key, ", "), volumes, where,
               CountReason(h, target)) +
           GrowthReason(in, layout, stripe, h, bins);
  } else if (h.chosen == "stripe") {
    const double u = layout.result.utilization[layout.BinOfStripe()];
    what = fmt::format(
        "a stripe of {} volumes ({}) {} at {}{}, with no schema change, and "
        "every object on it benefits (losing one member loses the stripe)",
        stripe->members.size(), fmt::join(h.stripe_members, ", "),
        AboveTarget(u, target) ? "takes it" : "carries it", Percent(u),
        AboveTarget(u, target)
            ? fmt::format(", above the {} target", Percent(target))
            : "");
  } else {
    what = fmt::format("no remedy applies: hash partitioning: {}; a stripe: {}",
                       h.partition_blocker, h.stripe_blocker);
  }
  return fmt::format("{}; {}", need, what);
}

}  // namespace

Status SearchRemedies(const PlanInputs& in, const WalPlacement& wal,
                      RemedyPlan* plan) {
  RemedySearch search(in, wal);
  return search.Run(plan);
}

void ExplainRemedies(const PlanInputs& in, const Layout& layout,
                     RemedyPlan* plan) {
  for (HotRelation& h : plan->hot) h.why = Explain(in, layout, plan->stripe, h);
}

std::string RemedyName(const RemedyForecast& f) {
  return f.remedy == "stripe" ? "the plan with a stripe"
                              : "the plan with hash partitions";
}

std::string RemedyFigures(const RemedyForecast& f, double target) {
  if (!f.possible) {
    return fmt::format("{}: not possible: {}", RemedyName(f), f.blocker);
  }
  return fmt::format("{}, {} the {} target", Figures(f),
                     f.meets_target ? "within" : "above", Percent(target));
}

RemedyChoice ChooseRemedy(const RemedyForecast& partition,
                          const RemedyForecast& stripe,
                          const std::string& prefer, bool live, double target) {
  const bool p_ok = partition.possible && partition.helps;
  const bool s_ok = stripe.possible && stripe.helps;
  auto lost = [](const RemedyForecast& f) {
    return f.possible ? std::string("does not lower the worst volume")
                      : f.blocker;
  };
  if (!p_ok && !s_ok) {
    return {"none", fmt::format("hash partitioning: {}; a stripe: {}",
                                lost(partition), lost(stripe))};
  }
  if (p_ok != s_ok) {
    const RemedyForecast& one = p_ok ? partition : stripe;
    const RemedyForecast& other = p_ok ? stripe : partition;
    return {
        one.remedy,
        fmt::format("{}: {}",
                    other.remedy == "stripe" ? "a stripe" : "hash partitioning",
                    lost(other))};
  }
  auto pick = [&](const RemedyForecast& f, const std::string& why) {
    return RemedyChoice{f.remedy, why};
  };
  if (prefer == "partition" || prefer == "stripe") {
    const RemedyForecast& x = prefer == "stripe" ? stripe : partition;
    const RemedyForecast& y = prefer == "stripe" ? partition : stripe;
    if (!x.meets_target && y.meets_target) {
      return pick(
          y, fmt::format("--prefer {} overridden: its plan keeps the "
                         "worst volume at {}, above the {} target, "
                         "and {} meets it at {}",
                         prefer, Percent(x.worst_utilization), Percent(target),
                         RemedyName(y), Percent(y.worst_utilization)));
    }
    if (!x.meets_target &&
        y.worst_utilization < x.worst_utilization - kRemedyTolerance) {
      return pick(y, fmt::format("--prefer {} overridden: neither meets the "
                                 "target and {} comes closer",
                                 prefer, RemedyName(y)));
    }
    return pick(x, fmt::format("as preferred (--prefer {})", prefer));
  }
  if (partition.meets_target != stripe.meets_target) {
    const RemedyForecast& f = partition.meets_target ? partition : stripe;
    return pick(f, "only it meets the target");
  }
  if (std::fabs(partition.worst_utilization - stripe.worst_utilization) >
      kRemedyTolerance) {
    const RemedyForecast& f =
        partition.worst_utilization < stripe.worst_utilization ? partition
                                                               : stripe;
    return pick(f, "the lower worst utilisation");
  }
  const double lp = partition.mean_read_latency_us;
  const double ls = stripe.mean_read_latency_us;
  if (lp > 0 && ls > 0 && std::max(lp, ls) > 1.05 * std::min(lp, ls)) {
    return pick(lp < ls ? partition : stripe,
                "the forecasts are alike; the lower mean read latency");
  }
  if (live) {
    return pick(partition,
                "the forecasts are alike, so the lower operational cost on a "
                "live server: hash partitioning is online and changes only "
                "the partitioned tables, a stripe needs empty volumes and a "
                "rebuild, and "
                "losing one member loses every object on it");
  }
  return pick(stripe,
              "the forecasts are alike, so the lower operational cost for a "
              "new build: a stripe needs no schema change and every object "
              "on it benefits (losing one member loses the stripe)");
}

}  // namespace pglayout::planner
