#include "planner/plan_builder.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <tuple>

#include "common/stripe_read.h"
#include "common/units.h"
#include "planner/demand.h"
#include "planner/device_model.h"
#include "planner/placement.h"
#include "planner/verdicts.h"

namespace pglayout::planner {
namespace {

// Partitioning is a schema change: to balance (rather than because a table
// is too hot for any volume) it is worth it only for a table that is a real
// part of the busiest volume's load.
constexpr double kMinSplitLoad = 0.2;
// Tables that stay where they are get a placement entry (with the reason)
// when they load their volume at least this much; colder ones are counted.
constexpr double kShownLoad = 0.01;
// A split must lower the worst utilisation by this much to be worth a
// schema change.
constexpr double kWorthwhile = 1e-3;
// Whether the online copy can identify |d|'s rows: a primary key or a
// unique key. Tables whose facts were not collected count as keyed; migrate's
// preflight checks the catalog again before changing anything.
bool HasRowKey(const TableDemand& d) {
  if (d.facts == nullptr) return true;
  const Relation& r = *d.facts;
  const bool facts_known =
      !r.persistence.empty() || !r.replica_identity.empty();
  return !facts_known || !r.primary_key.empty() || !r.unique_keys.empty();
}

// A materialized view of the workload that depends on |r|, or "": it
// would keep reading the old copy after an online swap, which migrate
// refuses.
std::string DependentMatview(const Relation& r, const Workload& w) {
  for (const std::string& view : r.dependent_views) {
    const Relation* v = w.Find(view);
    if (v != nullptr && v->kind == RelationKind::kMaterializedView) {
      return view;
    }
  }
  return "";
}

std::string MatviewReason(const std::string& view) {
  return "materialized view " + view +
         " depends on it and would keep reading the old copy";
}

// Why |d| can only move offline, or "" when the online copy can take it.
// From the workload's facts; migrate's preflight checks the catalog again
// before changing anything.
std::string OfflineReason(const TableDemand& d, const Workload& w) {
  if (!HasRowKey(d)) return "no primary key or unique key";
  if (d.facts == nullptr) return "";
  const Relation& r = *d.facts;
  if (r.kind == RelationKind::kMaterializedView) {
    return "a materialized view is not copied online";
  }
  if (r.persistence == "unlogged") {
    return "unlogged (its online copy would not survive a crash)";
  }
  if (r.partitioned) return "a partition (the online copy swaps whole tables)";
  const std::string view = DependentMatview(r, w);
  return view.empty() ? "" : MatviewReason(view);
}

// Growth seen over a shorter observation (autovacuum cycles, a batch job,
// HOT chains filling pages) says nothing about months ahead: a 30-second
// sample once projected a 130 MiB table to 894 GiB.
constexpr double kMinGrowthObservation = 3600;
// Partition counts whose worst utilisation is this close count as equal.
constexpr double kSpreadTolerance = 0.03;
// fdatasync latencies within 5% are equal for choosing the WAL's volume.
constexpr double kLatencyTie = 1.05;
// The volume that holds pg_wal now keeps it unless another is more than
// 25% faster to fdatasync, and faster than its own p99 (WalStays: moving
// pg_wal needs a restart).
constexpr double kWalStayTie = 1.25;
constexpr int kMaxRemedies = 16;
// Partition counts tried beyond the least that carries a table.
constexpr int kExtraPartitions = 6;

std::string RemedyName(const RemedyForecast& f) {
  return f.remedy == "stripe" ? "the plan with a stripe"
                              : "the plan with hash partitions";
}

// "hash partitions: worst volume 66%, mean read 1004 us" for the reasons.
std::string Figures(const RemedyForecast& f) {
  return fmt::format(
      "{} ({}) keeps the worst volume at {}, mean read {:.0f} us",
      RemedyName(f), f.summary, Percent(f.worst_utilization),
      f.mean_read_latency_us);
}

std::string RemedyFigures(const RemedyForecast& f, double target) {
  if (!f.possible) {
    return fmt::format("{}: not possible: {}", RemedyName(f), f.blocker);
  }
  return fmt::format("{}, {} the {} target", Figures(f),
                     f.meets_target ? "within" : "above", Percent(target));
}

struct StripeState {
  std::string name;
  std::vector<int> members;  // volume indices
  DeviceModel model;
};

// The whole of |d| (reads, checkpoint writes, backup reads) on |m|.
double TableUtilization(const DeviceModel& m, const TableDemand& d) {
  return m.Utilization(d.read_iops, d.checkpoint_write_iops,
                       d.backup_bytes_per_second);
}

double WalUtilization(const DeviceModel& m, const WalDemand& wal) {
  const double bytes_per_second = m.write_mbps() > 0
                                      ? m.write_mbps() * 1e6
                                      : m.write_capacity() * kPageSize;
  return std::max(wal.flushes_per_second / m.write_capacity(),
                  wal.bytes_per_second / bytes_per_second);
}

// "pglayout_" + the volume's name in lower-case letters, digits and '_'.
std::string TablespaceNameFor(const std::string& volume) {
  std::string name = "pglayout_";
  for (char c : volume) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    name += ok ? c : '_';
  }
  return name.substr(0, 63);
}

std::string ParentDirectory(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos || slash == 0) return "/mnt";
  return path.substr(0, slash);
}

class Builder {
 public:
  Builder(const VolumeSet& volumes, const Workload& workload,
          const PlanOptions& options)
      : vs_(volumes), w_(workload), opt_(options) {}

  Status Run(PlanOutcome* out) {
    PGLAYOUT_RETURN_IF_ERROR(CheckOptions());
    PGLAYOUT_RETURN_IF_ERROR(Prepare());
    PGLAYOUT_RETURN_IF_ERROR(Optimise());
    Assemble(out);
    return Status::Ok();
  }

 private:
  // ---------------------------------------------------------- inputs --

  Status CheckOptions() const {
    if (!(opt_.target_utilization > 0 && opt_.target_utilization <= 1)) {
      return Status::InvalidInput(
          fmt::format("--target must be a fraction in (0, 1], got {}",
                      opt_.target_utilization));
    }
    if (opt_.prefer != "auto" && opt_.prefer != "partition" &&
        opt_.prefer != "stripe") {
      return Status::InvalidInput(fmt::format(
          "--prefer must be partition, stripe or auto, got '{}'", opt_.prefer));
    }
    if (!(opt_.headroom >= 0 && opt_.headroom < 1)) {
      return Status::InvalidInput(fmt::format(
          "--headroom must be a fraction in [0, 1), got {}", opt_.headroom));
    }
    if (!(opt_.backup_window_seconds >= 0)) {
      return Status::InvalidInput(
          fmt::format("--backup-window must not be negative, got {} s",
                      opt_.backup_window_seconds));
    }
    return Status::Ok();
  }

  Status Prepare() {
    if (vs_.volumes.empty()) {
      return Status::InvalidInput(
          "no volumes: declare at least one [[volume]] in the volumes file");
    }
    for (const Volume& v : vs_.volumes) {
      models_.emplace_back();
      PGLAYOUT_RETURN_IF_ERROR(DeviceModel::Build(v, &models_.back()));
    }
    PGLAYOUT_RETURN_IF_ERROR(FindDevicePools(vs_, &pools_));
    demand_options_ = DemandOptionsFor(opt_, w_);
    PGLAYOUT_RETURN_IF_ERROR(
        BuildDemand(w_, vs_, demand_options_, &tables_, &wal_));
    version_ = static_cast<int>(std::strtol(
        w_.Setting("server_version_num").value_or("0").c_str(), nullptr, 10));
    live_ = w_.source == "live" || w_.source == "log";
    default_volume_ =
        VolumeIndex(VolumeOfLocation(vs_, LocationOf(w_, "")).volume);
    LocateWal();
    current_bytes_.assign(vs_.volumes.size(), 0);
    for (const TableDemand& t : tables_) {
      const int v = VolumeIndex(t.current_volume);
      if (v >= 0) current_bytes_[v] += t.bytes;
    }
    PGLAYOUT_RETURN_IF_ERROR(CheckSizes());
    PGLAYOUT_RETURN_IF_ERROR(CheckKeys());
    PGLAYOUT_RETURN_IF_ERROR(ChooseWalVolume());
    PlanWalStripe();
    parts_.assign(tables_.size(), 1);
    tried_.assign(tables_.size(), false);
    return Status::Ok();
  }

  // Where pg_wal is now, from the workload's [[location]] of role pg_wal:
  // wal_now_ is its volume, -1 when on no declared volume or unknown.
  void LocateWal() {
    wal_location_ = w_.FindLocation("pg_wal");
    if (wal_location_ == nullptr) return;
    wal_match_ = VolumeOfLocation(vs_, *wal_location_);
    wal_now_ = VolumeIndex(wal_match_.volume);
  }

  int VolumeIndex(const std::string& name) const {
    for (size_t i = 0; i < vs_.volumes.size(); ++i) {
      if (vs_.volumes[i].name == name) return static_cast<int>(i);
    }
    return -1;
  }

  const TableDemand* FindTable(const std::string& name) const {
    for (const TableDemand& t : tables_) {
      if (t.table == name) return &t;
    }
    return nullptr;
  }

  Status CheckSizes() const {
    const Volume* largest = &vs_.volumes[0];
    for (const Volume& v : vs_.volumes) {
      if (v.capacity > largest->capacity) largest = &v;
    }
    for (const TableDemand& t : tables_) {
      if (t.heap_bytes <= largest->capacity) continue;
      return Status::InvalidInput(fmt::format(
          "relation '{}' ({}) is larger than every volume (the largest is "
          "'{}', {}): no placement can hold it; declare a larger volume",
          t.table, HumanSize(static_cast<double>(t.heap_bytes)), largest->name,
          HumanSize(static_cast<double>(largest->capacity))));
    }
    return Status::Ok();
  }

  Status CheckKeys() const {
    for (const auto& [table, columns] : opt_.keys) {
      const TableDemand* t = FindTable(table);
      if (t == nullptr) {
        return Status::InvalidInput(fmt::format(
            "--key names '{}', which is not a table in the workload", table));
      }
      if (columns.empty()) {
        return Status::InvalidInput(
            fmt::format("--key for '{}' names no column", table));
      }
      const std::vector<std::string>& pk = t->facts->primary_key;
      for (const std::string& column : columns) {
        if (pk.empty() || std::find(pk.begin(), pk.end(), column) != pk.end()) {
          continue;
        }
        return Status::InvalidInput(fmt::format(
            "--key for '{}': column '{}' is not in its primary key ({}); a "
            "hash key must be part of every unique key",
            table, column, fmt::join(pk, ", ")));
      }
    }
    return Status::Ok();
  }

  // The volume the caller sized for the WAL, if any; otherwise the lowest
  // fdatasync latency, near-ties going to a volume without data, then to
  // the larger write capacity, then to the first declared.
  Status ChooseWalVolume() {
    if (!opt_.wal_volume.empty()) {
      wal_volume_ = VolumeIndex(opt_.wal_volume);
      if (wal_volume_ < 0) {
        return Status::InvalidInput(fmt::format(
            "the WAL volume '{}' is not a volume of the set", opt_.wal_volume));
      }
      wal_util_ = WalUtilization(models_[wal_volume_], wal_);
      return Status::Ok();
    }
    const int n = static_cast<int>(models_.size());
    auto latency = [&](int i) {
      double l = models_[i].sync_write_latency_us();
      return l > 0 ? l : 1e300;
    };
    int best = 0;
    for (int i = 1; i < n; ++i) {
      if (latency(i) < latency(best)) best = i;
    }
    const double lowest = latency(best);
    auto rank = [&](int i) {
      return std::make_tuple(!DeviceEmpty(i), -models_[i].write_capacity(), i);
    };
    for (int i = 0; i < n; ++i) {
      if (latency(i) > lowest * kLatencyTie) continue;
      if (rank(i) < rank(best)) best = i;
    }
    if (WalStays(lowest, best)) best = wal_now_;
    wal_volume_ = best;
    wal_util_ = WalUtilization(models_[best], wal_);
    return Status::Ok();
  }

  // The WAL stays where it is, if it carries the WAL within the target
  // there, when moving it to |best| would gain little: |best| is on the
  // same device (a restart for nothing), or its volume holds no data and
  // its fdatasync latency is within kWalStayTie of the best, or within the
  // best's own spread (its probed p99: a difference the probe cannot tell
  // from noise). Moving pg_wal takes a restart; noise is not worth one
  // (docs/where-data-lives.md#the-wal-starts-where-it-is).
  bool WalStays(double lowest, int best) const {
    if (wal_now_ < 0 || wal_now_ == best) return false;
    if (AboveTarget(WalUtilization(models_[wal_now_], wal_),
                    opt_.target_utilization)) {
      return false;
    }
    if (pools_.Same(wal_now_, best)) return true;
    const double latency = models_[wal_now_].sync_write_latency_us();
    const double tie = std::max(lowest * kWalStayTie,
                                models_[best].sync_write_latency_p99_us());
    return DeviceEmpty(wal_now_) && latency > 0 && latency <= tie;
  }

  // The WAL shares its hardware with the data: one device under every
  // volume.
  bool WalShares() const { return pools_.Devices() == 1; }

  // No volume on |v|'s device holds data now (nor the data directory).
  bool DeviceEmpty(int v) const {
    for (size_t u = 0; u < models_.size(); ++u) {
      const int ui = static_cast<int>(u);
      if (!pools_.Same(v, ui)) continue;
      if (ui == default_volume_ || current_bytes_[u] > 0) return false;
    }
    return true;
  }

  // |v| is on the WAL's hardware: its volume's device or its stripe.
  bool OnWalDevice(int v) const {
    return HoldsWal(v) || pools_.Same(v, wal_volume_);
  }

  // A member of the data stripe or of the WAL's stripe.
  bool StripeMember(int volume) const {
    for (const std::optional<StripeState>* s : {&stripe_, &wal_stripe_}) {
      if (*s &&
          std::count((*s)->members.begin(), (*s)->members.end(), volume)) {
        return true;
      }
    }
    return false;
  }

  bool HoldsWal(int volume) const {
    return volume == wal_volume_ ||
           (wal_stripe_ && std::count(wal_stripe_->members.begin(),
                                      wal_stripe_->members.end(), volume));
  }

  // The name [wal] volume carries: the WAL's stripe or its volume.
  std::string WalName() const {
    return wal_stripe_ ? wal_stripe_->name : vs_.volumes[wal_volume_].name;
  }

  // The WAL cannot be hash-partitioned: when its stream keeps even the best
  // volume above the target, the remedy is a stripe (the WAL's own volume
  // may itself be a striped LV: docs/source-scenarios.md#oracle-to-the-cloud,
  // docs/device-model.md#wal-and-commit-latency). The fewest alike, empty
  // volumes that carry it within the target, lowest fdatasync latency
  // first, leaving at least one volume for the data. A stripe adds write
  // IOPS and bandwidth; one flush still waits for its slowest member, so it
  // does not lower the latency of a lone commit.
  void PlanWalStripe() {
    wal_single_volume_ = wal_volume_;
    wal_single_util_ = wal_util_;
    if (WalShares() || !opt_.wal_volume.empty() ||
        !AboveTarget(wal_util_, opt_.target_utilization)) {
      return;
    }
    std::vector<std::vector<int>> groups = AlikeEmptyGroups(true);
    std::stable_sort(groups.begin(), groups.end(),
                     [&](const std::vector<int>& a, const std::vector<int>& b) {
                       return models_[a[0]].sync_write_latency_us() <
                              models_[b[0]].sync_write_latency_us();
                     });
    // One device stays for the data.
    const size_t most = static_cast<size_t>(pools_.Devices() - 1);
    double widest_util = 0;
    size_t widest = 0;
    for (const std::vector<int>& g : groups) {
      for (size_t k = 2; k <= std::min(g.size(), most); ++k) {
        std::vector<int> members(g.begin(), g.begin() + k);
        StripeState stripe = MakeStripe("wal_stripe", members);
        const double u = WalUtilization(stripe.model, wal_);
        if (k > widest) {
          widest = k;
          widest_util = u;
          wal_widest_like_ = members[0];
        }
        if (AboveTarget(u, opt_.target_utilization)) continue;
        wal_volume_ = members[0];
        wal_util_ = u;
        wal_stripe_ = std::move(stripe);
        return;
      }
    }
    wal_stripe_blocker_ =
        widest == 0
            ? "a stripe needs at least two empty, alike volumes besides one "
              "for the data"
            : fmt::format(
                  "even a stripe of {} empty, alike volumes like {} would be "
                  "{} busy",
                  widest, vs_.volumes[wal_widest_like_].name,
                  Percent(widest_util));
  }

  StripeState MakeStripe(const std::string& name,
                         const std::vector<int>& members) const {
    std::vector<const DeviceModel*> member_models;
    for (int v : members) member_models.push_back(&models_[v]);
    return StripeState{name, members, DeviceModel::Stripe(name, member_models)};
  }

  // --------------------------------------------------------- layout --

  // Data volumes: every volume but the WAL's (unless it is the only one),
  // with the stripe members replaced by the stripe.
  void BuildBins() {
    bins_.clear();
    bin_volume_.clear();
    for (size_t v = 0; v < models_.size(); ++v) {
      const int vi = static_cast<int>(v);
      if (OnWalDevice(vi) && !WalShares()) continue;
      if (stripe_ &&
          std::count(stripe_->members.begin(), stripe_->members.end(), vi)) {
        continue;
      }
      AddBin(&models_[v], vi);
    }
    if (stripe_) AddBin(&stripe_->model, -1);
  }

  void AddBin(const DeviceModel* model, int volume) {
    PlaceBin bin;
    bin.model = model;
    bin.hard_bytes = model->capacity_bytes();
    bin.usable_bytes = static_cast<uint64_t>(
        static_cast<double>(bin.hard_bytes) * (1 - opt_.headroom));
    if (volume == wal_volume_) bin.base_utilization = wal_util_;
    if (volume >= 0) bin.pool = pools_.pool_of[volume];
    bins_.push_back(bin);
    bin_volume_.push_back(volume);
  }

  // Distinct devices under the data volumes (a stripe is one).
  int DataDevices() const {
    std::vector<int> pools;
    int devices = 0;
    for (const PlaceBin& b : bins_) {
      if (b.pool < 0) {
        ++devices;
      } else if (std::count(pools.begin(), pools.end(), b.pool) == 0) {
        pools.push_back(b.pool);
        ++devices;
      }
    }
    return devices;
  }

  int BinOfVolume(int volume) const {
    for (size_t b = 0; b < bin_volume_.size(); ++b) {
      if (bin_volume_[b] == volume && volume >= 0) return static_cast<int>(b);
    }
    return -1;
  }

  void BuildItems() {
    items_.clear();
    for (size_t t = 0; t < tables_.size(); ++t) {
      const TableDemand& d = tables_[t];
      const int k = parts_[t];
      for (int p = 0; p < k; ++p) {
        PlaceItem item;
        item.table = static_cast<int>(t);
        item.part = p;
        item.parts = k;
        item.read_iops = d.read_iops / k;
        item.write_iops = d.checkpoint_write_iops / k;
        item.backup_bytes_per_second = d.backup_bytes_per_second / k;
        item.bytes = d.bytes_needed / k;
        item.current = k == 1 ? BinOfVolume(VolumeIndex(d.current_volume)) : -1;
        items_.push_back(item);
      }
    }
  }

  Status Layout() {
    BuildBins();
    BuildItems();
    Status st = PlaceItems(items_, bins_, opt_.target_utilization, &result_);
    if (st.ok()) return st;
    if (result_.unplaced_item < 0) return st;
    const TableDemand& t = tables_[items_[result_.unplaced_item].table];
    uint64_t total = 0, room = 0;
    for (const TableDemand& d : tables_) total += d.bytes_needed;
    for (const PlaceBin& b : bins_) room += b.hard_bytes;
    return Status::InvalidInput(fmt::format(
        "the data does not fit: no data volume has room left for '{}' ({} "
        "with growth); the workload needs {} in all and the data volumes "
        "hold {}",
        t.table, HumanSize(static_cast<double>(t.bytes_needed)),
        HumanSize(static_cast<double>(total)),
        HumanSize(static_cast<double>(room))));
  }

  // ------------------------------------------------------- remedies --

  // Utilisation of table |t| alone on the best data volume.
  double BestSingle(int t) const {
    double best = 1e300;
    for (const PlaceBin& b : bins_) {
      best = std::min(best, TableUtilization(*b.model, tables_[t]));
    }
    return best;
  }

  // Too hot for any one volume first; then, to bring the busiest volumes
  // down, the heaviest table on a volume above the target, then the
  // heaviest anywhere (moving it may free room where it is needed);
  // -1 when nothing is left to try.
  int NextCandidate() const {
    int best = -1;
    double best_load = 0;
    for (size_t t = 0; t < tables_.size(); ++t) {
      if (parts_[t] > 1 || tried_[t]) continue;
      const double load = BestSingle(static_cast<int>(t));
      if (AboveTarget(load, opt_.target_utilization) && load > best_load) {
        best = static_cast<int>(t);
        best_load = load;
      }
    }
    if (best >= 0) return best;
    for (bool over_only : {true, false}) {
      for (size_t i = 0; i < items_.size(); ++i) {
        const PlaceItem& item = items_[i];
        const int b = result_.bin_of[i];
        if (item.parts > 1 || tried_[item.table]) continue;
        if (over_only && result_.utilization[b] <= opt_.target_utilization) {
          continue;
        }
        const double load = Load(item, bins_[b]);
        if (load >= kMinSplitLoad && load > best_load) {
          best = item.table;
          best_load = load;
        }
      }
      if (best >= 0) return best;
    }
    return -1;
  }

  // Both remedies, each as a complete plan: hash partitions only, and a
  // stripe first (partitions for what else stays too hot, since a stripe is
  // built once). The two forecasts are compared by ChooseRemedy and the
  // winner kept; when no table needed a remedy, the plans are one.
  Status Optimise() {
    Snapshot partition_plan, stripe_plan;
    PGLAYOUT_RETURN_IF_ERROR(Remedies("hash_partition", &partition_plan));
    PGLAYOUT_RETURN_IF_ERROR(Remedies("stripe", &stripe_plan));
    if (partition_plan.hot.empty()) return Restore(partition_plan);
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
    c.choice = ChooseRemedy(c.partition, c.stripe, opt_.prefer, live_,
                            opt_.target_utilization);
    comparison_ = c;
    return Restore(c.choice.chosen == "stripe" ? stripe_plan : partition_plan);
  }

  // What one mode of Optimise ended with.
  struct Snapshot {
    std::vector<int> parts;
    std::optional<StripeState> stripe;
    int stripe_owner = -1;
    std::vector<HotRelation> hot;
    RemedyForecast forecast;
    bool built_stripe = false;
    int partitioned = 0;
    std::string stripe_blocker;     // the first hot table's, when none
    std::string partition_blocker;  // likewise
  };

  Status Remedies(const std::string& mode, Snapshot* out) {
    mode_ = mode;
    parts_.assign(tables_.size(), 1);
    tried_.assign(tables_.size(), false);
    stripe_.reset();
    stripe_owner_ = -1;
    hot_.clear();
    PGLAYOUT_RETURN_IF_ERROR(Layout());
    const double before = result_.max_utilization;
    for (int round = 0; round < kMaxRemedies; ++round) {
      if (!AboveTarget(result_.max_utilization, opt_.target_utilization)) {
        break;
      }
      const int t = NextCandidate();
      if (t < 0) break;
      tried_[t] = true;
      PGLAYOUT_RETURN_IF_ERROR(Remedy(t));
    }
    out->parts = parts_;
    out->stripe = stripe_;
    out->stripe_owner = stripe_owner_;
    out->hot = hot_;
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
      for (int v : stripe_->members) f.members.push_back(vs_.volumes[v].name);
    }
    f.summary = fmt::format(
        "{}{}{}",
        stripe_ ? fmt::format("a stripe of {} ({}) for {}", f.width,
                              fmt::join(f.members, ", "),
                              tables_[stripe_owner_].table)
                : "",
        stripe_ && !parts.empty() ? ", " : "",
        parts.empty()
            ? ""
            : "hash partitions: " + fmt::format("{}", fmt::join(parts, ", ")));
    if (f.summary.empty()) f.summary = "no remedy";
    return Status::Ok();
  }

  Status Restore(const Snapshot& s) {
    parts_ = s.parts;
    stripe_ = s.stripe;
    stripe_owner_ = s.stripe_owner;
    hot_ = s.hot;
    return Layout();
  }

  // Volumes that hold no data (building a stripe destroys what is on its
  // members), grouped by alike models (a stripe runs at its slowest
  // member's pace), in volume order. The WAL's volume (or stripe) is left
  // out unless |with_wal_volume|, and so is a volume that shares its
  // device with another (a stripe over it would add no device).
  std::vector<std::vector<int>> AlikeEmptyGroups(bool with_wal_volume) const {
    std::vector<std::vector<int>> groups;
    for (size_t v = 0; v < models_.size(); ++v) {
      const int vi = static_cast<int>(v);
      if (vi == default_volume_ || current_bytes_[v] > 0) continue;
      if (pools_.pool_of[v] >= 0) continue;
      if (HoldsWal(vi) && !(with_wal_volume && vi == wal_volume_)) continue;
      const DeviceModel& m = models_[v];
      auto same = [&](const std::vector<int>& g) {
        const DeviceModel& o = models_[g[0]];
        return o.read_capacity() == m.read_capacity() &&
               o.write_capacity() == m.write_capacity() &&
               o.capacity_bytes() == m.capacity_bytes() &&
               o.sync_write_latency_us() == m.sync_write_latency_us();
      };
      auto it = std::find_if(groups.begin(), groups.end(), same);
      if (it == groups.end()) {
        groups.push_back({vi});
      } else {
        it->push_back(vi);
      }
    }
    return groups;
  }

  // Utilisation of table |t| alone on the best single volume (a stripe the
  // plan builds is not one).
  double BestSingleVolume(int t) const {
    double best = 1e300;
    for (size_t b = 0; b < bins_.size(); ++b) {
      if (bin_volume_[b] < 0) continue;
      best = std::min(best, TableUtilization(*bins_[b].model, tables_[t]));
    }
    return best < 1e300 ? best : BestSingle(t);
  }

  // The plan's mean read latency with the current layout.
  double LayoutLatency() const {
    std::vector<BoundVolume> volumes;
    for (const PlaceBin& b : bins_) volumes.push_back({b.model, 0});
    std::vector<double> reads(bins_.size(), 0), writes(bins_.size(), 0);
    for (size_t i = 0; i < items_.size(); ++i) {
      reads[result_.bin_of[i]] += items_[i].read_iops;
      writes[result_.bin_of[i]] += items_[i].write_iops;
    }
    return MeanLatencyUs(volumes, reads, writes, result_.utilization);
  }

  // The current layout as |f|'s forecast.
  void Measure(bool must, double before, RemedyForecast* f) const {
    f->worst_utilization = result_.max_utilization;
    f->mean_read_latency_us = LayoutLatency();
    f->meets_target =
        !AboveTarget(result_.max_utilization, opt_.target_utilization);
    f->helps = must || result_.max_utilization < before - kWorthwhile;
  }

  // What the plan looks like without a remedy for |t|: its worst
  // utilisation then.
  Status WithoutRemedy(int t, double* before) {
    parts_[t] = 1;
    if (stripe_ && stripe_owner_ == t) stripe_.reset();
    PGLAYOUT_RETURN_IF_ERROR(Layout());
    *before = result_.max_utilization;
    return Status::Ok();
  }

  // Hash partitioning of |t| over k of the data volumes, k from what the
  // table needs at the target up to one partition per data volume. The
  // lowest worst utilisation wins; among the k that meet the target within
  // kSpreadTolerance of the best, the largest: the number of hash
  // partitions is fixed once created (changing it rewrites the table), so
  // spreading over every volume that carries it well is cheap insurance for
  // growth, as ASM spreads over every disk of a group. Leaves the plan
  // without a remedy for |t|.
  Status EvaluatePartition(int t, const HotRelation& h, double before,
                           RemedyForecast* f) {
    f->remedy = "hash_partition";
    // One partition per device at most: two on one device spread nothing.
    const int n = DataDevices();
    if (!h.partition.feasible()) {
      f->blocker = h.partition.blockers[0];
      return Status::Ok();
    }
    if (n < 2) {
      f->blocker = "there are fewer than two data volumes on distinct devices";
      return Status::Ok();
    }
    const int k_min = std::clamp(
        static_cast<int>(std::ceil(BestSingle(t) / opt_.target_utilization)), 2,
        n);
    std::vector<double> peak(n + 1, 1e300);
    double best = 1e300;
    for (int k = k_min; k <= n; ++k) {
      // Beyond a few more than needed, only one per volume is worth a try.
      if (k > k_min + kExtraPartitions && k < n) continue;
      parts_[t] = k;
      if (!Layout().ok()) continue;
      peak[k] = result_.max_utilization;
      best = std::min(best, peak[k]);
    }
    int chosen = -1;
    for (int k = k_min; k <= n; ++k) {
      if (chosen < 0 && peak[k] < best + kWorthwhile) chosen = k;
    }
    if (chosen < 0) {
      f->blocker = "its partitions find no room on distinct volumes";
      parts_[t] = 1;
      return Layout();
    }
    const int widest = std::min({n, k_min + kExtraPartitions, 2 * k_min});
    for (int k = chosen; k <= widest; ++k) {
      if (best <= opt_.target_utilization &&
          peak[k] <= opt_.target_utilization &&
          peak[k] <= best + kSpreadTolerance) {
        chosen = std::max(chosen, k);
      }
    }
    parts_[t] = chosen;
    PGLAYOUT_RETURN_IF_ERROR(Layout());
    f->possible = true;
    f->width = chosen;
    Measure(h.must, before, f);
    parts_[t] = 1;
    return Layout();
  }

  // Every stripe that can be built from empty, alike data volumes (2 to all
  // of a group), the best forecast kept: meeting the target first, then the
  // lower worst utilisation (beyond kRemedyTolerance), then the fewest
  // members (fewer empty volumes, a smaller loss when one fails). Leaves the
  // plan without a remedy for |t|.
  Status EvaluateStripe(int t, const HotRelation& h, double before,
                        RemedyForecast* f, std::vector<int>* members) {
    f->remedy = "stripe";
    if (stripe_) {
      f->blocker = fmt::format(
          "a stripe was already built from the empty volumes, for {}",
          tables_[stripe_owner_].table);
      return Status::Ok();
    }
    bool any = false;
    for (const std::vector<int>& g : AlikeEmptyGroups(false)) {
      for (size_t k = 2; k <= g.size(); ++k) {
        any = true;
        std::vector<int> candidate(g.begin(), g.begin() + k);
        stripe_ = MakeStripe("data_stripe", candidate);
        stripe_owner_ = t;
        if (!Layout().ok()) continue;
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
    for (int v : *members) f->members.push_back(vs_.volumes[v].name);
    return Layout();
  }

  static bool BetterStripe(const RemedyForecast& c, const RemedyForecast& b) {
    if (c.meets_target != b.meets_target) return c.meets_target;
    if (std::fabs(c.worst_utilization - b.worst_utilization) >
        kRemedyTolerance) {
      return c.worst_utilization < b.worst_utilization;
    }
    return c.width < b.width;
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
      stripe_ = MakeStripe("data_stripe", members);
      stripe_owner_ = t;
      h->chosen = "stripe";
      h->stripe = stripe_->name;
      h->stripe_members = stripe.members;
      return Layout();
    }
    PGLAYOUT_RETURN_IF_ERROR(EvaluatePartition(t, *h, before, &partition));
    if (partition.possible && partition.helps) {
      parts_[t] = partition.width;
      h->chosen = "hash_partition";
      h->partitions = parts_[t];
      return Layout();
    }
    h->chosen = "none";
    h->partition_blocker = partition.possible
                               ? "partitioning does not lower the worst volume"
                               : partition.blocker;
    return Status::Ok();
  }

  Status Remedy(int t) {
    HotRelation h;
    h.table = tables_[t].table;
    h.best_single_utilization = BestSingleVolume(t);
    h.must = AboveTarget(h.best_single_utilization, opt_.target_utilization);
    auto key = opt_.keys.find(h.table);
    h.partition = CheckHashPartitioning(
        *tables_[t].facts,
        key == opt_.keys.end() ? std::vector<std::string>{} : key->second,
        version_);
    const std::string view = DependentMatview(*tables_[t].facts, w_);
    if (!view.empty()) h.partition.blockers.push_back(MatviewReason(view));
    PGLAYOUT_RETURN_IF_ERROR(Decide(t, &h));
    if (h.must || h.chosen != "none") hot_.push_back(std::move(h));
    return Status::Ok();
  }

  // The hot relation's trade-off in one sentence, from the complete plan.
  std::string Explain(const HotRelation& h) const {
    std::string need =
        h.must ? fmt::format(
                     "alone it would keep the best volume {} busy, above the "
                     "{} target",
                     Percent(h.best_single_utilization),
                     Percent(opt_.target_utilization))
               : "it keeps the busiest volume above the target";
    std::string what;
    if (h.chosen == "hash_partition") {
      what = fmt::format(
          "{} hash partitions on ({}) spread it over {} volumes, online, and "
          "only this table changes",
          h.partitions, fmt::join(h.partition.key, ", "), h.partitions);
    } else if (h.chosen == "stripe") {
      const double u = result_.utilization[BinOfStripe()];
      what = fmt::format(
          "a stripe of {} volumes ({}) {} at {}{}, with no schema change, and "
          "every object on it benefits (losing one member loses the stripe)",
          stripe_->members.size(), fmt::join(h.stripe_members, ", "),
          AboveTarget(u, opt_.target_utilization) ? "takes it" : "carries it",
          Percent(u),
          AboveTarget(u, opt_.target_utilization)
              ? fmt::format(", above the {} target",
                            Percent(opt_.target_utilization))
              : "");
    } else {
      what =
          fmt::format("no remedy applies: hash partitioning: {}; a stripe: {}",
                      h.partition_blocker, h.stripe_blocker);
    }
    return fmt::format("{}; {}", need, what);
  }

  // ------------------------------------------------------ assembly --

  void Assemble(PlanOutcome* out);
  void AssembleTablespaces(PlanOutcome* out);
  void AssemblePlacements(PlanOutcome* out);
  void AssembleForecast(PlanOutcome* out);
  std::vector<double> PooledUtilization(const std::vector<double>& own) const;
  void AssemblePools(PlanOutcome* out);
  static void AddForecastEntry(const std::string& name,
                               const DeviceModel& model,
                               std::optional<double> before,
                               ForecastEntry after, PlanOutcome* out);
  std::string WalMemberNames() const;
  std::string WalDeviceMates() const;
  void AddPoolVerdicts(PlanOutcome* out) const;
  VolumeView StripeView(const StripeState& stripe, const std::string& role,
                        uint64_t bytes_after) const;
  Stripe DescribeStripe(const StripeState& state, uint64_t chunk,
                        const std::string& reason) const;
  uint64_t WalFreeBytes() const;
  void AssembleBound(PlanOutcome* out);
  void AssembleSettings(PlanOutcome* out);
  void AssembleVerdicts(PlanOutcome* out);
  void AssembleWalNow(PlanOutcome* out);
  std::string WalTargetDirectory() const;
  std::vector<std::string> WhereNow() const;
  void AssembleViews(PlanOutcome* out);
  void AssembleStripes(PlanOutcome* out);
  void AddFitVerdicts(PlanOutcome* out);
  void AddWalVerdicts(PlanOutcome* out);
  void AddWalMoveVerdict(PlanOutcome* out) const;
  void AddHostCapVerdicts(PlanOutcome* out);
  // The horizon over which growth is projected: 0 when the observation was
  // too short to tell (see kMinGrowthObservation).
  double GrowthHorizon() const;
  std::string WalReason() const;
  std::string WalLoadText() const;
  std::string BinName(int bin) const;
  int BinOfStripe() const;
  uint64_t StripeWidth() const;
  Volume BackupVolume() const;

  const VolumeSet& vs_;
  const Workload& w_;
  const PlanOptions& opt_;
  std::vector<DeviceModel> models_;  // per volume
  DevicePools pools_;                // volumes that share a device
  std::vector<TableDemand> tables_;
  WalDemand wal_;
  DemandOptions demand_options_;
  int version_ = 0;
  bool live_ = false;
  int default_volume_ = -1;
  const DataLocation* wal_location_ = nullptr;  // pg_wal now; null = unknown
  VolumeMatch wal_match_;                       // its volume, and how found
  int wal_now_ = -1;                            // its volume index, or -1
  int wal_volume_ = 0;
  double wal_util_ = 0;
  std::vector<uint64_t> current_bytes_;  // per volume
  std::vector<int> parts_;               // per table
  std::vector<bool> tried_;              // per table
  std::optional<StripeState> stripe_;
  int stripe_owner_ = -1;  // the table stripe_ was built for
  std::string mode_;       // the remedies tried: "hash_partition", "stripe"
  std::optional<RemedyComparison> comparison_;
  // The WAL's own stripe, when no single volume carries the WAL
  // (PlanWalStripe); wal_volume_ is then its first member.
  std::optional<StripeState> wal_stripe_;
  std::string wal_stripe_blocker_;  // why there is none when one was needed
  int wal_single_volume_ = 0;       // the best single volume for the WAL
  // The kind of the widest WAL stripe tried (one of its members), or -1.
  int wal_widest_like_ = -1;
  double wal_single_util_ = 0;  // the WAL on it
  std::vector<HotRelation> hot_;
  std::vector<PlaceBin> bins_;
  std::vector<int> bin_volume_;  // -1 = the stripe
  std::vector<PlaceItem> items_;
  PlaceResult result_;
  std::vector<std::string> bin_tablespace_;  // per bin
  std::vector<double> own_after_;  // per volume: its own load, device aside
  double read_total_ = 0;
};

std::string Builder::BinName(int bin) const {
  const int v = bin_volume_[bin];
  return v >= 0 ? vs_.volumes[v].name : stripe_->name;
}

std::string Builder::WalReason() const {
  const DeviceModel& m = models_[wal_volume_];
  std::string latency =
      m.sync_write_latency_us() > 0
          ? fmt::format("{:.0f} us per 8 KiB write + fdatasync",
                        m.sync_write_latency_us())
          : "no fdatasync latency declared; chosen by write IOPS";
  if (WalShares() && models_.size() > 1) {
    return fmt::format(
        "every volume is on one device ({}): the WAL on {} shares that "
        "hardware with the data ({}); commits wait behind data I/O, so a "
        "low-latency volume on other hardware would help",
        pools_.names[0], m.name(), latency);
  }
  if (WalShares()) {
    return fmt::format(
        "only one volume: the WAL shares {} with the data ({}); commits wait "
        "behind data I/O, so a separate low-latency volume would help",
        m.name(), latency);
  }
  if (wal_stripe_) {
    return fmt::format(
        "no single volume carries the WAL (the best alone would be {} busy) "
        "and the WAL cannot be hash-partitioned: a RAID0 stripe of {} ({}); "
        "alone, so commits never queue behind data I/O; WAL keeps it {} busy",
        Percent(wal_single_util_), WalMemberNames(), latency,
        Percent(wal_util_));
  }
  return fmt::format(
      "{} ({}); alone{}, so commits never queue behind data reads and "
      "checkpoint writes; {}",
      !opt_.wal_volume.empty() ? "sized for the WAL by capacity planning"
      : wal_now_ == wal_volume_
          ? "pg_wal is already here and no volume is faster to fdatasync "
            "beyond the probe's noise (25%, or the faster volume's own p99)"
          : "lowest commit latency",
      latency, WalDeviceMates(), WalLoadText());
}

// What the WAL costs its volume, or that it is not known.
std::string Builder::WalLoadText() const {
  if (!wal_.rate_known) {
    return "WAL rate unknown (not in the workload), so its load on this "
           "volume is not forecast: observe the live server to measure it";
  }
  return fmt::format(
      "WAL keeps it {} busy ({})", Percent(wal_util_),
      wal_.flushes_counted
          ? fmt::format("{:.0f} WAL flushes/s as the server counted them",
                        wal_.flushes_per_second)
          : fmt::format("{:.0f} commits/s, each counted as a WAL flush: the "
                        "workload has no count of the server's flushes",
                        wal_.flushes_per_second));
}

void Builder::AssembleTablespaces(PlanOutcome* out) {
  bin_tablespace_.assign(bins_.size(), "");
  std::vector<TablespaceSpec> specs(bins_.size());
  for (size_t b = 0; b < bins_.size(); ++b) {
    const int v = bin_volume_[b];
    TablespaceSpec& spec = specs[b];
    spec.volume = BinName(static_cast<int>(b));
    if (v >= 0 && v == default_volume_) {
      spec.name = "pg_default";
    } else if (v < 0) {
      spec.name = TablespaceNameFor(stripe_->name);
      spec.path = ParentDirectory(vs_.volumes[stripe_->members[0]].path) + "/" +
                  stripe_->name + "/pg";
    } else {
      const Volume& vol = vs_.volumes[v];
      for (const TablespaceInfo& t : w_.tablespaces) {
        if (t.name.starts_with("pg_") || t.location.empty()) continue;
        if (VolumeOfLocation(vs_, LocationOf(w_, t.name)).volume != vol.name) {
          continue;
        }
        spec.name = t.name;
        spec.path = t.location;
        break;
      }
      if (spec.name.empty()) {
        spec.name = TablespaceNameFor(vol.name);
        spec.path = vol.path.empty() ? "/mnt/" + vol.name : vol.path;
      }
    }
    bin_tablespace_[b] = spec.name;
  }
  AssemblePlacements(out);
  const DeviceModel* reference =
      default_volume_ >= 0 ? &models_[default_volume_] : nullptr;
  for (size_t b = 0; b < bins_.size(); ++b) {
    TablespaceSpec& spec = specs[b];
    if (spec.name == "pg_default") continue;
    bool used = false;
    for (const Placement& p : out->plan.placements) {
      used = used || std::count(p.tablespaces.begin(), p.tablespaces.end(),
                                spec.name) > 0;
    }
    if (!used) continue;
    spec.options = TablespaceOptions(*bins_[b].model, reference, version_);
    out->plan.tablespaces.push_back(std::move(spec));
  }
}

void Builder::AssemblePlacements(PlanOutcome* out) {
  Plan& plan = out->plan;
  size_t i = 0;
  while (i < items_.size()) {
    const int t = items_[i].table;
    const TableDemand& d = tables_[t];
    const int k = items_[i].parts;
    Placement p;
    p.relation = d.table;
    p.online = live_;
    if (k > 1) {
      p.strategy = Strategy::kHashPartition;
      p.partitions = k;
      for (int j = 0; j < k; ++j) {
        p.tablespaces.push_back(bin_tablespace_[result_.bin_of[i + j]]);
      }
      for (const HotRelation& h : hot_) {
        if (h.table != d.table) continue;
        p.key = h.partition.key;
        p.reason = h.why;
      }
      ++out->partitioned;
      plan.placements.push_back(std::move(p));
      i += k;
      continue;
    }
    const int b = result_.bin_of[i];
    const double load = Load(items_[i], bins_[b]);
    const std::string& ts = bin_tablespace_[b];
    const bool unknown = d.current_volume.empty();
    const bool stays =
        items_[i].current == b || (unknown && ts == "pg_default");
    if (stays) {
      p.strategy = Strategy::kStay;
      p.reason = fmt::format(
          "stays on {}: {:.0f} read + {:.0f} write IOPS, {} "
          "of it",
          BinName(b), d.read_iops, d.checkpoint_write_iops, Percent(load));
      if (load >= kShownLoad) plan.placements.push_back(std::move(p));
      ++i;
      continue;
    }
    p.strategy = Strategy::kMove;
    p.tablespaces = {ts};
    p.reason =
        fmt::format("{} {}: {:.0f} read + {:.0f} write IOPS, {} of it, {}",
                    unknown ? "created on" : "from " + d.current_volume + " to",
                    BinName(b), d.read_iops, d.checkpoint_write_iops,
                    Percent(load), HumanSize(static_cast<double>(d.bytes)));
    const std::string offline = OfflineReason(d, w_);
    if (p.online && !offline.empty()) {
      // migrate would refuse the online copy. The locking ALTER ... SET
      // TABLESPACE remains.
      p.online = false;
      p.reason += "; " + offline +
                  ", so it moves offline (ALTER ... SET TABLESPACE locks it "
                  "while its files are copied)";
    }
    ++out->moves;
    plan.placements.push_back(std::move(p));
    ++i;
  }
}

void Builder::AssembleForecast(PlanOutcome* out) {
  const size_t n = vs_.volumes.size();
  std::vector<double> before(n, 0);
  for (const TableDemand& d : tables_) {
    const int v = VolumeIndex(d.current_volume);
    if (v >= 0) before[v] += TableUtilization(models_[v], d);
  }
  // "before" counts the WAL where pg_wal is now; when the workload does not
  // say, only where it cannot be anywhere else: on the only volume.
  if (wal_now_ >= 0) {
    before[wal_now_] += WalUtilization(models_[wal_now_], wal_);
  } else if (WalShares() && wal_location_ == nullptr) {
    before[wal_volume_] += wal_util_;
  }
  // A volume that shares its device is as busy as the device.
  before = PooledUtilization(before);
  // The load after the plan, per bin, then per volume; a stripe's members
  // each carry an equal share of it.
  std::vector<ForecastEntry> bin_load(bins_.size());
  for (size_t i = 0; i < items_.size(); ++i) {
    const PlaceItem& item = items_[i];
    ForecastEntry& e = bin_load[result_.bin_of[i]];
    e.read_iops += item.read_iops;
    e.write_iops += tables_[item.table].write_iops / item.parts;
    e.checkpoint_write_iops += item.write_iops;
    e.backup_read_mbps += item.backup_bytes_per_second / 1e6;
  }
  ForecastEntry wal_load;
  wal_load.utilization_after = wal_util_;
  wal_load.wal_write_iops = wal_.flushes_per_second;
  wal_load.wal_write_mbps = wal_.bytes_per_second / 1e6;
  for (size_t b = 0; b < bins_.size(); ++b) {
    bin_load[b].utilization_after = result_.utilization[b];
    if (bin_volume_[b] == wal_volume_ && WalShares()) {
      bin_load[b].wal_write_iops = wal_load.wal_write_iops;
      bin_load[b].wal_write_mbps = wal_load.wal_write_mbps;
    }
  }
  std::vector<ForecastEntry> after(n);
  std::vector<double> own(n, 0);
  for (size_t b = 0; b < bins_.size(); ++b) {
    if (bin_volume_[b] < 0) continue;
    after[bin_volume_[b]] = bin_load[b];
    own[bin_volume_[b]] = result_.own_utilization[b];
  }
  if (!WalShares() && !wal_stripe_) {
    after[wal_volume_] = wal_load;
    own[wal_volume_] = wal_util_;
  }
  own_after_ = own;
  const std::vector<double> pooled = PooledUtilization(own);
  for (size_t v = 0; v < n; ++v) {
    if (pools_.pool_of[v] >= 0) after[v].utilization_after = pooled[v];
  }
  const int stripe_bin = BinOfStripe();
  // A stripe is one volume: its members are not listed beside it.
  for (size_t v = 0; v < n; ++v) {
    if (StripeMember(static_cast<int>(v))) continue;
    AddForecastEntry(vs_.volumes[v].name, models_[v], before[v], after[v], out);
  }
  if (stripe_) {
    AddForecastEntry(stripe_->name, stripe_->model, std::nullopt,
                     bin_load[stripe_bin], out);
  }
  if (wal_stripe_) {
    AddForecastEntry(wal_stripe_->name, wal_stripe_->model, std::nullopt,
                     wal_load, out);
  }
}

// Per volume: the sum of |own| over the volumes on its device.
std::vector<double> Builder::PooledUtilization(
    const std::vector<double>& own) const {
  std::vector<double> pooled(own.size(), 0);
  for (size_t v = 0; v < own.size(); ++v) {
    for (size_t u = 0; u < own.size(); ++u) {
      if (pools_.Same(static_cast<int>(v), static_cast<int>(u))) {
        pooled[v] += own[u];
      }
    }
  }
  return pooled;
}

// Rounded so that plan files stay readable and byte-stable.
// |before| is nullopt for a stripe, which does not exist before the plan.
void Builder::AddForecastEntry(const std::string& name,
                               const DeviceModel& model,
                               std::optional<double> before,
                               ForecastEntry after, PlanOutcome* out) {
  auto round3 = [](double x) { return std::round(x * 1000) / 1000; };
  auto round1 = [](double x) { return std::round(x * 10) / 10; };
  after.volume = name;
  after.utilization_before = round3(before.value_or(0));
  after.read_latency_us_before =
      before ? std::round(model.ReadLatencyUs(*before)) : 0;
  after.read_latency_us_after =
      std::round(model.ReadLatencyUs(after.utilization_after));
  after.utilization_after = round3(after.utilization_after);
  for (double* x : {&after.read_iops, &after.write_iops,
                    &after.checkpoint_write_iops, &after.wal_write_iops,
                    &after.wal_write_mbps, &after.backup_read_mbps}) {
    *x = round1(*x);
  }
  out->plan.forecast.push_back(after);
}

// Where pg_wal goes: <volume path>/pg_wal, or on the WAL's stripe, mounted
// where stripe.sh mounts it.
std::string Builder::WalTargetDirectory() const {
  if (wal_stripe_) return "/mnt/" + wal_stripe_->name + "/pg_wal";
  const Volume& v = vs_.volumes[wal_volume_];
  return (v.path.empty() ? "/mnt/" + v.name : v.path) + "/pg_wal";
}

// One line per directory of the server and the volume holding it.
std::vector<std::string> Builder::WhereNow() const {
  std::vector<DataLocation> all = w_.locations;
  if (all.empty()) all.push_back(LocationOf(w_, ""));
  std::vector<std::string> out;
  for (const DataLocation& l : all) {
    if (l.path.empty()) continue;
    const VolumeMatch m = VolumeOfLocation(vs_, l);
    out.push_back(fmt::format(
        "{}: {}", DescribeLocation(l),
        m.volume.empty() ? "on no declared volume"
                         : fmt::format("on {} (by {})", m.volume, m.how)));
  }
  return out;
}

// Where pg_wal is now, and the step by hand that moves it when the plan
// puts it elsewhere (docs/where-data-lives.md#moving-the-wal).
void Builder::AssembleWalNow(PlanOutcome* out) {
  Plan& plan = out->plan;
  plan.warnings = UnmatchedLocations(w_, vs_);
  out->where_now = WhereNow();
  if (wal_location_ == nullptr) {
    plan.wal_now_note =
        "unknown: the workload does not record where pg_wal is (observe the "
        "server on its own host to record it)";
    return;
  }
  plan.wal_now = wal_match_.volume;
  plan.wal_now_note = DescribeLocation(*wal_location_) +
                      (wal_match_.volume.empty() ? ", on no declared volume"
                                                 : ", on " + wal_match_.volume);
  if (!wal_stripe_ && wal_now_ == wal_volume_) return;
  WalMove m;
  m.from_volume = wal_match_.volume;
  m.from_path =
      wal_location_->on ? wal_location_->on->resolved : wal_location_->path;
  m.to_path = WalTargetDirectory();
  m.data_directory = LocationOf(w_, "").path;
  for (const ForecastEntry& f : plan.forecast) {
    if (wal_now_ < 0 || f.volume != m.from_volume) continue;
    m.from_utilization_until_moved =
        std::round(
            (f.utilization_after + WalUtilization(models_[wal_now_], wal_)) *
            1000) /
        1000;
  }
  plan.wal_move = std::move(m);
}

void Builder::AssembleViews(PlanOutcome* out) {
  for (size_t v = 0; v < vs_.volumes.size(); ++v) {
    VolumeView view;
    view.name = vs_.volumes[v].name;
    view.model = models_[v].Describe();
    view.read_capacity = models_[v].read_capacity();
    view.write_capacity = models_[v].write_capacity();
    view.capacity = models_[v].capacity_bytes();
    const int vi = static_cast<int>(v);
    const int b = BinOfVolume(vi);
    if (b >= 0) view.bytes_after = result_.bytes[b];
    const bool member = stripe_ && std::count(stripe_->members.begin(),
                                              stripe_->members.end(), vi);
    view.role = member                        ? "stripe member"
                : wal_stripe_ && HoldsWal(vi) ? "wal member"
                : vi == wal_volume_ ? (WalShares() ? "wal+data" : "wal")
                : OnWalDevice(vi) && !WalShares() ? "wal's device"
                                                  : "data";
    out->volumes.push_back(view);
  }
  if (stripe_) {
    out->volumes.push_back(
        StripeView(*stripe_, "stripe", result_.bytes[BinOfStripe()]));
  }
  if (wal_stripe_) out->volumes.push_back(StripeView(*wal_stripe_, "wal", 0));
}

VolumeView Builder::StripeView(const StripeState& stripe,
                               const std::string& role,
                               uint64_t bytes_after) const {
  VolumeView view;
  view.name = stripe.name;
  view.model = stripe.model.Describe();
  view.read_capacity = stripe.model.read_capacity();
  view.write_capacity = stripe.model.write_capacity();
  view.capacity = stripe.model.capacity_bytes();
  view.bytes_after = bytes_after;
  view.role = role;
  return view;
}

int Builder::BinOfStripe() const {
  for (size_t b = 0; b < bin_volume_.size(); ++b) {
    if (bin_volume_[b] < 0) return static_cast<int>(b);
  }
  return -1;
}

// Each device under more than one volume, then the instance's caps.
void Builder::AssemblePools(PlanOutcome* out) {
  for (size_t p = 0; p < pools_.members.size(); ++p) {
    PoolForecast pool;
    pool.kind = "device";
    pool.name = pools_.names[p];
    pool.in_forecast = true;
    for (int v : pools_.members[p]) {
      const std::string& name = vs_.volumes[v].name;
      pool.volumes.push_back(name);
      for (const ForecastEntry& f : out->plan.forecast) {
        if (f.volume == name) pool.utilization = f.utilization_after;
      }
    }
    pool.detail = fmt::format(
        "{} share it: each is as busy as the device, the sum of their loads "
        "(each measured alone on the whole device)",
        fmt::join(pool.volumes, ", "));
    out->pools.push_back(std::move(pool));
  }
  if (std::optional<PoolForecast> measured =
          MeasuredPool(vs_, pools_, own_after_)) {
    out->pools.push_back(std::move(*measured));
  }
  if (std::optional<PoolForecast> instance =
          InstancePool(vs_.host, TotalLoad(tables_, wal_))) {
    out->pools.push_back(std::move(*instance));
  }
}

void Builder::AssembleBound(PlanOutcome* out) {
  std::vector<BoundVolume> volumes;
  for (const PlaceBin& b : bins_)
    volumes.push_back({b.model, b.base_utilization});
  // The bound spreads over devices: a pool's bins are one device, whose
  // capacity each of them was measured with.
  std::vector<BoundVolume> devices;
  std::vector<int> device_of_pool(pools_.members.size(), -1);
  for (const PlaceBin& b : bins_) {
    if (b.pool < 0) {
      devices.push_back({b.model, b.base_utilization});
    } else if (device_of_pool[b.pool] < 0) {
      device_of_pool[b.pool] = static_cast<int>(devices.size());
      devices.push_back({b.model, b.base_utilization});
    } else {
      devices[device_of_pool[b.pool]].base_utilization += b.base_utilization;
    }
  }
  std::vector<double> reads(bins_.size(), 0), writes(bins_.size(), 0);
  double read_total = 0, write_total = 0;
  for (size_t i = 0; i < items_.size(); ++i) {
    reads[result_.bin_of[i]] += items_[i].read_iops;
    writes[result_.bin_of[i]] += items_[i].write_iops;
    read_total += items_[i].read_iops;
    write_total += items_[i].write_iops;
  }
  out->bound = ComputeBound(read_total, write_total, devices);
  out->mean_latency_us =
      MeanLatencyUs(volumes, reads, writes, result_.utilization);
  out->max_utilization = result_.max_utilization;
  read_total_ = read_total;
}

uint64_t Builder::StripeWidth() const {
  if (stripe_) return kStripeChunk * stripe_->members.size();
  uint64_t widest = 0;
  for (int v : bin_volume_) {
    if (v < 0) continue;
    widest = std::max(widest, FullStripe(vs_.volumes[v]).width);
  }
  return widest;
}

// The volume a base backup reads most from: pg_default's, else the stripe
// the plan builds (its members and chunk: nothing measured yet), else the
// one the plan puts most bytes on.
Volume Builder::BackupVolume() const {
  if (default_volume_ >= 0) return vs_.volumes[default_volume_];
  if (stripe_) {
    Volume v;
    v.name = stripe_->name;
    v.members = static_cast<int>(stripe_->members.size());
    v.chunk = kStripeChunk;
    return v;
  }
  int most = 0;
  for (size_t b = 1; b < bins_.size(); ++b) {
    if (result_.bytes[b] > result_.bytes[most]) most = static_cast<int>(b);
  }
  if (bin_volume_[most] >= 0) return vs_.volumes[bin_volume_[most]];
  Volume v;
  v.name = "the data";
  return v;
}

// What the WAL may use: a new stripe is empty; a volume has its free bytes
// (or its capacity) less the data the plan puts on it.
uint64_t Builder::WalFreeBytes() const {
  if (wal_stripe_) return wal_stripe_->model.capacity_bytes();
  const Volume& wal = vs_.volumes[wal_volume_];
  uint64_t free = wal.free_bytes > 0 ? wal.free_bytes : wal.capacity;
  const int wal_bin = BinOfVolume(wal_volume_);
  if (wal_bin >= 0) free -= std::min(free, result_.bytes[wal_bin]);
  return free;
}

// " on its hardware (device vda, which wal2 shares: the plan puts no data
// there)" when other volumes share the WAL's device, else "".
std::string Builder::WalDeviceMates() const {
  const int pool = pools_.pool_of[wal_volume_];
  if (wal_stripe_ || pool < 0) return "";
  std::vector<std::string> mates;
  for (int v : pools_.members[pool]) {
    if (v != wal_volume_) mates.push_back(vs_.volumes[v].name);
  }
  return fmt::format(
      " on its hardware ({}, which {} share{}: the plan puts no data there)",
      pools_.names[pool], fmt::join(mates, ", "), mates.size() == 1 ? "s" : "");
}

std::string Builder::WalMemberNames() const {
  std::vector<std::string> names;
  for (int v : wal_stripe_->members) names.push_back(vs_.volumes[v].name);
  return fmt::format("{}", fmt::join(names, ", "));
}

void Builder::AssembleSettings(PlanOutcome* out) {
  CheckpointInput checkpoint{&w_, wal_.bytes_per_second, WalFreeBytes(),
                             opt_.recovery_budget_seconds};
  out->plan.settings = RecommendCheckpoints(checkpoint);
  IoInput io;
  io.server_version_num = version_;
  io.workload = &w_;
  io.default_volume =
      default_volume_ >= 0 ? &models_[default_volume_] : bins_[0].model;
  io.read_iops = read_total_;
  io.read_latency_us = out->mean_latency_us;
  io.stripe_width = StripeWidth();
  for (SettingChange& s : RecommendIo(io)) out->plan.settings.push_back(s);
  out->backup = RecommendBackup(vs_.host, ChooseBackupReadSize(BackupVolume()));
  out->plan.backup_walg = out->backup.walg;
  out->plan.backup_pgbackrest = out->backup.pgbackrest;
}

void Builder::AssembleStripes(PlanOutcome* out) {
  if (stripe_) {
    out->plan.stripes.push_back(DescribeStripe(
        *stripe_, kStripeChunk,
        fmt::format("RAID0 of {} alike, empty volumes: {:.0f} read IOPS "
                    "together; {} chunk keeps each 8 KiB read on one member "
                    "while large reads span members",
                    stripe_->members.size(), stripe_->model.read_capacity(),
                    HumanSize(static_cast<double>(kStripeChunk)))));
  }
  if (wal_stripe_) {
    out->plan.stripes.push_back(DescribeStripe(
        *wal_stripe_, kWalStripeChunk,
        fmt::format("RAID0 of {} alike, empty volumes for pg_wal: {:.0f} "
                    "write IOPS{} together, the WAL at {}; {} chunk so that "
                    "a group-commit flush of a few hundred KiB spans members",
                    wal_stripe_->members.size(),
                    wal_stripe_->model.write_capacity(),
                    wal_stripe_->model.write_mbps() > 0
                        ? fmt::format(" and {:.0f} MB/s",
                                      wal_stripe_->model.write_mbps())
                        : "",
                    Percent(wal_util_),
                    HumanSize(static_cast<double>(kWalStripeChunk)))));
  }
}

Stripe Builder::DescribeStripe(const StripeState& state, uint64_t chunk,
                               const std::string& reason) const {
  Stripe s;
  s.name = state.name;
  for (int v : state.members) s.members.push_back(vs_.volumes[v].name);
  s.chunk = chunk;
  bool local = true;
  for (int v : state.members) {
    const std::string& kind = vs_.volumes[v].kind;
    local = local && (kind == "local-nvme" || kind == "aws-instance-store");
  }
  // mdadm for local disks (what managed hosts use for instance NVMe); LVM
  // for network volumes, where a striped LV can later grow by whole stripes.
  s.tool = local ? "mdadm" : "lvm";
  s.reason = reason;
  return s;
}

void Builder::AssembleVerdicts(PlanOutcome* out) {
  std::vector<std::string>& v = out->plan.verdicts;
  AddWalVerdicts(out);
  AddPoolVerdicts(out);
  for (const HotRelation& h : hot_) {
    v.push_back(fmt::format("{}: {}", h.table, h.why));
  }
  if (comparison_) {
    const RemedyComparison& c = *comparison_;
    v.push_back(fmt::format(
        "remedies: {} chosen: {}; side by side: {}; {}",
        c.choice.chosen == "stripe"           ? "the plan with a stripe"
        : c.choice.chosen == "hash_partition" ? "the plan with hash partitions"
                                              : "no remedy",
        c.choice.reason, RemedyFigures(c.partition, opt_.target_utilization),
        RemedyFigures(c.stripe, opt_.target_utilization)));
  }
  AddFitVerdicts(out);
  const Bound& b = out->bound;
  v.push_back(fmt::format(
      "bound: the worst data volume is at {} (a perfect spread of every "
      "byte over every data volume would reach {}); mean read latency {:.0f} "
      "us vs {:.0f} us at best",
      Percent(out->max_utilization), Percent(b.max_utilization),
      out->mean_latency_us, b.mean_latency_us));
  if (!result_.within_headroom) {
    v.push_back(fmt::format(
        "capacity: some volume uses the {} growth headroom; add capacity",
        Percent(opt_.headroom)));
  }
}

void Builder::AddWalVerdicts(PlanOutcome* out) {
  std::vector<std::string>& v = out->plan.verdicts;
  const std::string& best = vs_.volumes[wal_single_volume_].name;
  if (WalShares() && models_.size() > 1) {
    v.push_back(fmt::format(
        "WAL: every volume is on one device ({}), so the WAL on {} shares "
        "that hardware with the data",
        pools_.names[0], best));
  } else if (WalShares()) {
    v.push_back(fmt::format(
        "WAL: only one volume ({}), so the WAL shares it with the data", best));
  } else if (wal_stripe_) {
    v.push_back(fmt::format(
        "WAL: no single volume carries it ({} {} busy alone, above the {} "
        "target) and it cannot be hash-partitioned: a stripe of {} volumes "
        "({}) carries it at {}; see stripe.sh",
        best, Percent(wal_single_util_), Percent(opt_.target_utilization),
        wal_stripe_->members.size(), WalMemberNames(), Percent(wal_util_)));
  } else {
    v.push_back(
        fmt::format("WAL: alone on {}{}, {}", best, WalDeviceMates(),
                    !opt_.wal_volume.empty() ? "the volume sized for it"
                    : wal_now_ == wal_volume_
                        ? "where pg_wal already is (moving it needs a restart)"
                        : "the lowest fdatasync latency"));
  }
  AddWalMoveVerdict(out);
  if (!AboveTarget(wal_util_, opt_.target_utilization)) return;
  // What it would take: volumes of the kind the widest stripe tried was
  // made of (or like the best single volume), striped, at the target. A
  // stripe of alike members carries k times one member, so this is more
  // than the widest stripe tried.
  const int like =
      wal_widest_like_ >= 0 ? wal_widest_like_ : wal_single_volume_;
  const double one = WalUtilization(models_[like], wal_);
  int needed = 2;
  while (AboveTarget(one / needed, opt_.target_utilization)) ++needed;
  v.push_back(fmt::format(
      "WAL: its stream keeps {} {} busy, above the {} target: no single "
      "volume carries it{}; it would need a stripe of about {} volumes like "
      "{} for pg_wal (mdadm RAID0 or an LVM striped volume)",
      best, Percent(wal_util_), Percent(opt_.target_utilization),
      wal_stripe_blocker_.empty() ? "" : ", and here " + wal_stripe_blocker_,
      needed, vs_.volumes[like].name));
}

// One verdict per device under several volumes, and one for what probe
// --concurrent measured: each planned as one pool.
void Builder::AddPoolVerdicts(PlanOutcome* out) const {
  for (const PoolForecast& p : out->pools) {
    if (p.kind == "measured") {
      out->plan.verdicts.push_back(fmt::format(
          "shared hardware: {}; planned as one pool (a bottleneck sysfs does "
          "not show): {}",
          p.detail, Percent(p.utilization)));
    }
    if (!p.in_forecast) continue;
    std::vector<std::string> shares;
    for (const std::string& name : p.volumes) {
      const int v = VolumeIndex(name);
      shares.push_back(fmt::format("{} {}", name, Percent(own_after_[v])));
    }
    out->plan.verdicts.push_back(fmt::format(
        "shared hardware: {} are on one device ({}), planned as one pool: "
        "each is as busy as the device, {} ({} of it)",
        fmt::join(p.volumes, ", "), p.name, Percent(p.utilization),
        fmt::join(shares, " + ")));
  }
}

void Builder::AddWalMoveVerdict(PlanOutcome* out) const {
  const Plan& plan = out->plan;
  std::vector<std::string>& v = out->plan.verdicts;
  if (wal_location_ == nullptr) {
    v.push_back("WAL: where pg_wal is now is " + plan.wal_now_note);
    return;
  }
  if (!plan.wal_move) return;
  const WalMove& m = *plan.wal_move;
  v.push_back(fmt::format(
      "WAL: pg_wal is on {} now; moving it to {} is a step by hand that "
      "NEEDS A RESTART (stop the server, move pg_wal, symlink, start; "
      "migrate does not do it){}",
      m.from_volume.empty() ? "no declared volume" : m.from_volume,
      plan.wal_volume,
      m.from_volume.empty()
          ? ""
          : fmt::format("; until then {} also carries the WAL: {} busy",
                        m.from_volume,
                        Percent(m.from_utilization_until_moved))));
}

void Builder::AddFitVerdicts(PlanOutcome* out) {
  std::vector<std::string>& v = out->plan.verdicts;
  const double target = opt_.target_utilization;
  bool data_over = false, wal_over = false;
  for (const ForecastEntry* f : AboveTargetEntries(out->plan)) {
    const bool wal = !WalShares() && f->volume == WalName();
    (wal ? wal_over : data_over) = true;
  }
  std::string need;
  if (data_over) {
    // What it would take: volumes like the best one, at the target.
    const PlaceBin* best = &bins_[0];
    for (const PlaceBin& b : bins_) {
      if (b.model->read_capacity() > best->model->read_capacity()) best = &b;
    }
    double load = 0;
    for (size_t b = 0; b < bins_.size(); ++b) {
      load += result_.utilization[b] * bins_[b].model->read_capacity();
    }
    const int needed = static_cast<int>(
        std::ceil(load / (target * best->model->read_capacity())));
    need += fmt::format(
        "; the data's load would need about {} volumes like {} (the most "
        "capable here; there are {} data volumes), or splitting what stays "
        "too hot{}",
        needed, best->model->name(), bins_.size(),
        out->max_utilization > 1
            ? "; beyond what one host can take, distribute the hot tables "
              "over several hosts with Citus (hash-distributed tables)"
            : "");
  }
  if (wal_over) need += "; the WAL's volume: see the WAL verdict";
  for (const PoolForecast* p : AboveTargetPools(out->plan, out->pools)) {
    need += p->kind == "instance"
                ? "; the instance: see the host verdict"
                : "; the volumes measured together: see the shared hardware "
                  "verdict";
  }
  v.push_back(FitVerdict(out->plan, out->pools, need));
  if (std::string headroom = HeadroomVerdict(out->plan); !headroom.empty()) {
    v.push_back(std::move(headroom));
  }
  AddHostCapVerdicts(out);
  const bool grows = std::any_of(
      w_.relations.begin(), w_.relations.end(),
      [](const Relation& r) { return r.growth_bytes_per_second > 0; });
  if (opt_.growth) {
    out->plan.verdicts.push_back(fmt::format(
        "growth: declared {:.4g}% per {}, compounding: x{:.3f} over the {} "
        "horizon, in place of the observed growth",
        opt_.growth->fraction * 100,
        FormatDuration(opt_.growth->period_seconds),
        opt_.growth->FactorOver(opt_.horizon_seconds),
        FormatDuration(opt_.horizon_seconds)));
  } else if (grows && GrowthHorizon() < opt_.horizon_seconds) {
    out->plan.verdicts.push_back(fmt::format(
        "growth: not projected: the workload was observed for only {}, too "
        "short to extrapolate over {} (observe for at least {}, declare a "
        "rate with --growth, or write growth_bytes_per_second by hand)",
        FormatDuration(std::round(w_.duration)),
        FormatDuration(opt_.horizon_seconds),
        FormatDuration(kMinGrowthObservation)));
  }
  for (std::string& note : DeviceReadNotes(w_)) {
    out->plan.verdicts.push_back(std::move(note));
  }
}

double Builder::GrowthHorizon() const {
  return demand_options_.horizon_seconds;
}

// The instance's storage caps, a pool of every volume judged against the
// target like one (planner/pools.h); the fit verdict names it too.
void Builder::AddHostCapVerdicts(PlanOutcome* out) {
  const PoolForecast* instance = nullptr;
  for (const PoolForecast& p : out->pools) {
    if (p.kind == "instance") instance = &p;
  }
  if (instance == nullptr) return;
  const double target = opt_.target_utilization;
  if (!AboveTarget(instance->utilization, target)) {
    out->plan.verdicts.push_back(fmt::format(
        "host: within the instance's storage caps at the peak: {}; the "
        "instance at {}, at or below the {} target",
        instance->detail, Percent(instance->utilization), Percent(target)));
    return;
  }
  const auto [iops, mbps] = TotalLoad(tables_, wal_);
  out->plan.verdicts.push_back(fmt::format(
      "host: the instance's storage caps limit it: {}; the instance {} busy, "
      "above the {} target, whatever the volumes: it would need an instance "
      "allowing at least {:.0f} MB/s and {:.0f} IOPS (the peak at the "
      "target), or the hot tables distributed over several hosts with Citus",
      instance->detail, Percent(instance->utilization), Percent(target),
      std::ceil(mbps / target), std::ceil(iops / target)));
}

void Builder::Assemble(PlanOutcome* out) {
  Plan& plan = out->plan;
  plan.target_utilization = opt_.target_utilization;
  plan.prefer = opt_.prefer;
  plan.wal_volume = WalName();
  plan.wal_reason = WalReason();
  out->live = live_;
  out->tables = static_cast<int>(tables_.size());
  for (HotRelation& h : hot_) h.why = Explain(h);
  out->hot = hot_;
  out->remedies = comparison_;
  AssembleTablespaces(out);
  AssembleStripes(out);
  AssembleForecast(out);
  AssemblePools(out);
  AssembleWalNow(out);
  AssembleViews(out);
  AssembleBound(out);
  AssembleSettings(out);
  AssembleVerdicts(out);
  for (const TableDemand& d : tables_) {
    if (!d.indexes.empty()) out->sql_objects.indexes[d.table] = d.indexes;
  }
  for (const TablespaceInfo& t : w_.tablespaces) {
    out->sql_objects.existing_tablespaces.insert(t.name);
  }
  out->sql_objects.server_version_num = version_;
}

}  // namespace

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

DemandOptions DemandOptionsFor(const PlanOptions& options,
                               const Workload& workload) {
  DemandOptions d;
  d.growth = options.growth;
  const bool too_short = !options.growth && workload.duration > 0 &&
                         workload.duration < kMinGrowthObservation;
  d.horizon_seconds = too_short ? 0 : options.horizon_seconds;
  d.checkpoint_timeout_seconds = CheckpointTimeoutSeconds(workload);
  d.checkpoint_completion_target = kCheckpointCompletionTarget;
  d.backup_window_seconds = options.backup_window_seconds;
  return d;
}

Status BuildPlan(const VolumeSet& volumes, const Workload& workload,
                 const PlanOptions& options, PlanOutcome* outcome) {
  PlanOutcome out;
  Builder builder(volumes, workload, options);
  PGLAYOUT_RETURN_IF_ERROR(builder.Run(&out));
  *outcome = std::move(out);
  return Status::Ok();
}

Status LoadWhereItIs(const VolumeSet& volumes, const Workload& workload,
                     std::vector<ForecastEntry>* load) {
  PlanOutcome outcome;
  PGLAYOUT_RETURN_IF_ERROR(
      BuildPlan(volumes, workload, PlanOptions{}, &outcome));
  load->clear();
  for (const ForecastEntry& f : outcome.plan.forecast) {
    if (volumes.Find(f.volume) == nullptr) continue;  // a proposed stripe
    ForecastEntry now;
    now.volume = f.volume;
    now.utilization_before = f.utilization_before;
    now.read_latency_us_before = f.read_latency_us_before;
    load->push_back(now);
  }
  return Status::Ok();
}

}  // namespace pglayout::planner
