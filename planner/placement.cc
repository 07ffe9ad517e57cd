#include "planner/placement.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace pglayout::planner {
namespace {

// Moves that lower the worst utilisation by less than this are noise: they
// would shuffle cold relations around for nothing.
constexpr double kMinImprovement = 1e-3;
constexpr double kEpsilon = 1e-12;

class Placer {
 public:
  Placer(const std::vector<PlaceItem>& items, const std::vector<PlaceBin>& bins,
         double target)
      : items_(items), bins_(bins), calm_below_(target - kNearTarget) {
    load_.resize(items.size() * bins.size());
    for (size_t i = 0; i < items.size(); ++i) {
      for (size_t b = 0; b < bins.size(); ++b) {
        load_[i * bins.size() + b] = Load(items[i], bins[b]);
      }
    }
    std::vector<int> pools;
    for (const PlaceBin& b : bins) {
      if (b.pool < 0 || std::count(pools.begin(), pools.end(), b.pool) == 0) {
        ++devices_;
        if (b.pool >= 0) pools.push_back(b.pool);
      }
    }
    bin_of_.assign(items.size(), -1);
    members_.resize(bins.size());
    util_.resize(bins.size());
    for (size_t b = 0; b < bins.size(); ++b) {
      util_[b] = bins[b].base_utilization;
    }
    bytes_.assign(bins.size(), 0);
    home_load_.assign(bins.size(), 0);
    for (size_t i = 0; i < items.size(); ++i) {
      if (items[i].current >= 0) {
        home_load_[items[i].current] +=
            L(static_cast<int>(i), items[i].current);
      }
    }
  }

  // Pure LPT from scratch, then back home where that costs nothing.
  Status RunFromScratch(PlaceResult* result) {
    Status st = Greedy(result, /*homes_first=*/false);
    if (st.ok()) {
      Restore();
      Improve();
      Restore();
    }
    return Finish(st, result);
  }

  // Everything stays home first; only the homeless (new partitions, new
  // tables) are placed by LPT, then moves off the busiest volume.
  Status RunFromHome(PlaceResult* result) {
    Status st = Greedy(result, /*homes_first=*/true);
    if (st.ok()) {
      Improve();
      Restore();
    }
    return Finish(st, result);
  }

  uint64_t MovedBytes() const {
    uint64_t moved = 0;
    for (size_t i = 0; i < items_.size(); ++i) {
      if (bin_of_[i] != items_[i].current) moved += items_[i].bytes;
    }
    return moved;
  }

 private:
  Status Finish(Status st, PlaceResult* result) {
    result->bin_of = bin_of_;
    result->own_utilization = util_;
    result->utilization.resize(bins_.size());
    for (size_t b = 0; b < bins_.size(); ++b) {
      result->utilization[b] = U(static_cast<int>(b));
    }
    result->bytes = bytes_;
    result->max_utilization = MaxUtilization();
    for (size_t b = 0; b < bins_.size(); ++b) {
      if (bytes_[b] > bins_[b].usable_bytes) result->within_headroom = false;
    }
    return st;
  }

  double L(int item, int bin) const {
    return load_[static_cast<size_t>(item) * bins_.size() + bin];
  }

  bool SamePool(int a, int b) const {
    return a == b || (bins_[a].pool >= 0 && bins_[a].pool == bins_[b].pool);
  }

  // |bin|'s device utilisation: its own load, plus its pool's.
  double U(int bin) const {
    if (bins_[bin].pool < 0) return util_[bin];
    double sum = 0;
    for (size_t b = 0; b < bins_.size(); ++b) {
      if (SamePool(bin, static_cast<int>(b))) sum += util_[b];
    }
    return sum;
  }

  bool Fits(int item, int bin, bool hard) const {
    const PlaceBin& b = bins_[bin];
    const uint64_t limit = hard ? b.hard_bytes : b.usable_bytes;
    return bytes_[bin] + items_[item].bytes <= limit;
  }

  // Another partition of the same table already sits on |bin|'s device,
  // when the table has no more partitions than there are devices (two on
  // one device would spread nothing). With more partitions than devices,
  // a device takes as many as its capacity carries.
  bool SiblingOn(int item, int bin) const {
    const PlaceItem& it = items_[item];
    if (it.parts <= 1 || it.parts > devices_) return false;
    auto found = parts_on_.find(it.table);
    if (found == parts_on_.end()) return false;
    for (int b : found->second) {
      if (SamePool(b, bin)) return true;
    }
    return false;
  }

  bool Allowed(int item, int bin, bool hard) const {
    return Fits(item, bin, hard) && !SiblingOn(item, bin);
  }

  void Assign(int item, int bin) {
    bin_of_[item] = bin;
    members_[bin].push_back(item);
    util_[bin] += L(item, bin);
    bytes_[bin] += items_[item].bytes;
    if (items_[item].parts > 1) parts_on_[items_[item].table].push_back(bin);
  }

  void Unassign(int item) {
    const int bin = bin_of_[item];
    std::vector<int>& members = members_[bin];
    *std::find(members.begin(), members.end(), item) = members.back();
    members.pop_back();
    util_[bin] -= L(item, bin);
    bytes_[bin] -= items_[item].bytes;
    if (items_[item].parts > 1) {
      std::vector<int>& on = parts_on_[items_[item].table];
      on.erase(std::find(on.begin(), on.end(), bin));
    }
    bin_of_[item] = -1;
  }

  void Move(int item, int bin) {
    Unassign(item);
    Assign(item, bin);
  }

  double MaxUtilization() const {
    double worst = 0;
    for (size_t b = 0; b < bins_.size(); ++b) {
      worst = std::max(worst, U(static_cast<int>(b)));
    }
    return worst;
  }

  // The bin where |item| finishes lowest, or -1. On ties the bin that is
  // home to less load: new items go to empty volumes first, so that what
  // lives elsewhere can stay.
  int BestBin(int item, bool hard) const {
    int best = -1;
    double best_util = 0;
    for (int b = 0; b < static_cast<int>(bins_.size()); ++b) {
      if (!Allowed(item, b, hard)) continue;
      const double u = U(b) + L(item, b);
      const bool tie = best >= 0 && std::fabs(u - best_util) <= kEpsilon;
      if (best < 0 || u < best_util - kEpsilon ||
          (tie && home_load_[b] < home_load_[best])) {
        best = b;
        best_util = u;
      }
    }
    return best;
  }

  // Hottest first (by the load on the bin that suits it best), then the
  // biggest, then input order.
  std::vector<int> GreedyOrder() const {
    std::vector<double> key(items_.size());
    for (size_t i = 0; i < items_.size(); ++i) {
      double lowest = 1e300;
      for (size_t b = 0; b < bins_.size(); ++b) {
        lowest = std::min(lowest, L(static_cast<int>(i), static_cast<int>(b)));
      }
      key[i] = lowest;
    }
    std::vector<int> order(items_.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      if (key[a] != key[b]) return key[a] > key[b];
      return items_[a].bytes > items_[b].bytes;
    });
    return order;
  }

  Status Greedy(PlaceResult* result, bool homes_first) {
    if (homes_first) {
      for (size_t i = 0; i < items_.size(); ++i) {
        const int home = items_[i].current;
        const int item = static_cast<int>(i);
        if (home >= 0 && Allowed(item, home, false)) Assign(item, home);
      }
    }
    for (int item : GreedyOrder()) {
      if (bin_of_[item] >= 0) continue;
      int bin = BestBin(item, /*hard=*/false);
      if (bin < 0) bin = BestBin(item, /*hard=*/true);
      if (bin < 0) {
        result->unplaced_item = item;
        return Status::InvalidInput("no volume has room for the item");
      }
      Assign(item, bin);
    }
    return Status::Ok();
  }

  // Moves items back where they are now when that does not raise the worst
  // utilisation (or, while every volume stays calm, raises it by less than
  // kWorthMove): biggest first, because their copies cost the most.
  void Restore() {
    const double peak = MaxUtilization();
    const double ceiling =
        peak + kEpsilon +
        (peak <= calm_below_ ? std::max(0.0, std::min(kWorthMove - kEpsilon,
                                                      calm_below_ - peak))
                             : 0.0);
    std::vector<int> order(items_.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return items_[a].bytes > items_[b].bytes;
    });
    for (int item : order) {
      const int home = items_[item].current;
      if (home < 0 || bin_of_[item] == home) continue;
      const int was = bin_of_[item];
      Unassign(item);
      if (Allowed(item, home, false) && U(home) + L(item, home) <= ceiling) {
        Assign(item, home);
      } else {
        Assign(item, was);
      }
    }
  }

  // One improving move off the busiest bin; false when there is none. While
  // the busiest is calm (kNearTarget or more under the target), an item
  // that is home moves only for a gain of kWorthMove.
  bool ImproveOnce() {
    int worst = 0;
    for (int b = 1; b < static_cast<int>(bins_.size()); ++b) {
      if (U(b) > U(worst)) worst = b;
    }
    // The busiest device may be a pool: any of its bins can give an item
    // away, to a bin on another device (within the pool nothing changes).
    // The utilisations once (U sums a pool), and the cheap tests first:
    // a move that cannot beat the best so far is not checked for room.
    std::vector<double> u(bins_.size());
    for (size_t b = 0; b < bins_.size(); ++b) u[b] = U(static_cast<int>(b));
    const double worst_u = u[worst];
    int best_item = -1, best_bin = -1;
    double best_peak = worst_u - kMinImprovement;
    const bool calm = worst_u <= calm_below_;
    for (int from = 0; from < static_cast<int>(bins_.size()); ++from) {
      if (!SamePool(from, worst)) continue;
      for (int i : members_[from]) {
        if (L(i, from) < kMinImprovement) continue;
        const double left = worst_u - L(i, from);  // no peak is lower
        if (left >= best_peak + kEpsilon) continue;
        const bool home = items_[i].current == from;
        const double most = calm && home ? worst_u - kWorthMove : best_peak;
        for (int b = 0; b < static_cast<int>(bins_.size()); ++b) {
          const double peak = std::max(left, u[b] + L(i, b));
          if (peak > most + kEpsilon) continue;
          if (!(peak < best_peak - kEpsilon ||
                (peak < best_peak + kEpsilon && best_item >= 0 &&
                 i < best_item))) {
            continue;
          }
          if (SamePool(b, from) || !Allowed(i, b, false)) continue;
          best_peak = peak;
          best_item = i;
          best_bin = b;
        }
      }
    }
    if (best_item < 0) return false;
    Move(best_item, best_bin);
    return true;
  }

  void Improve() {
    // Each move lowers the worst volume by kMinImprovement at least, so a
    // thousand moves cover any realistic imbalance; more would only polish
    // a start that the other start beats anyway.
    const size_t limit = 1000;
    for (size_t n = 0; n < limit && ImproveOnce(); ++n) {
    }
  }

  const std::vector<PlaceItem>& items_;
  const std::vector<PlaceBin>& bins_;
  double calm_below_;         // the busiest at or below: no move for little
  int devices_ = 0;           // distinct devices under the bins
  std::vector<double> load_;  // items x bins
  std::vector<int> bin_of_;
  std::vector<std::vector<int>> members_;  // items on each bin
  std::vector<double> util_;
  std::vector<uint64_t> bytes_;
  std::vector<double> home_load_;             // load whose home is a bin
  std::map<int, std::vector<int>> parts_on_;  // table -> bins of its parts
};

}  // namespace

double Load(const PlaceItem& item, const PlaceBin& bin) {
  return bin.model->Utilization(item.read_iops, item.write_iops,
                                item.backup_bytes_per_second);
}

Status PlaceItems(const std::vector<PlaceItem>& items,
                  const std::vector<PlaceBin>& bins, double target,
                  PlaceResult* result) {
  *result = PlaceResult{};
  if (bins.empty()) {
    return Status::InvalidInput("there is no volume to place data on");
  }
  // Two starts; the better plan wins: below the target (or at the same
  // worst utilisation) the one that copies fewer bytes, else the lower
  // worst utilisation.
  PlaceResult scratch, home;
  Placer from_scratch(items, bins, target), from_home(items, bins, target);
  Status st = from_scratch.RunFromScratch(&scratch);
  if (!st.ok()) {
    *result = scratch;
    return st;
  }
  if (!from_home.RunFromHome(&home).ok()) {
    *result = scratch;
    return Status::Ok();
  }
  const double a = scratch.max_utilization, b = home.max_utilization;
  const bool same = std::fabs(a - b) < 1e-3;
  const bool both_fit = a <= target && b <= target;
  const bool home_wins =
      (same || both_fit) ? from_home.MovedBytes() <= from_scratch.MovedBytes()
                         : b < a;
  *result = home_wins ? home : scratch;
  return Status::Ok();
}

}  // namespace pglayout::planner
