#include "planner/plan_placements.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "planner/demand.h"
#include "planner/recommend.h"
#include "planner/remedy.h"
#include "planner/verdicts.h"

namespace pglayout::planner {
namespace {

// Tables that stay where they are get a placement entry (with the reason)
// when they load their volume at least this much; colder ones are counted.
constexpr double kShownLoad = 0.01;

// Whether the online copy can identify |d|'s rows: a primary key or a
// unique key. Tables whose facts were not collected count as keyed; migrate's
// preflight checks the catalog again before changing anything.
bool HasRowKey(const TableDemand& d) {
  if (d.facts == nullptr) return true;
  const Relation& r = *d.facts;
  const bool facts_known =
      r.persistence.has_value() || r.replica_identity.has_value();
  return !facts_known || !r.primary_key.empty() || !r.unique_keys.empty();
}

// Why the partition |r| cannot be detached, copied and attached again
// (docs/online-migration.md#moving-a-partition), or "".
std::string PartitionReason(const Relation& r, const Workload& w, int version) {
  if (PartitionParent(r).empty()) {
    return "a partition of a table workload.toml does not name (pglayout "
           "observe names it)";
  }
  const std::string referenced = AncestorsReferencersReason(
      w.Find(PartitionParent(r)), w.Find(r.partition_of), version);
  if (!referenced.empty()) return referenced;
  if (!r.identity_columns.empty()) {
    return fmt::format(
        "column {} is an identity column, which a partition shares with its "
        "parent and its copy cannot",
        r.identity_columns.front());
  }
  return "";
}

// "; what workload.toml does not record" when the online copy of |d| was
// judged without the facts the swap rule needs (an older file), else "".
std::string UnknownSwapFacts(const TableDemand& d, int version) {
  if (d.facts == nullptr || d.facts->rule_facts) return "";
  const HashRuleFacts facts = RuleFacts(*d.facts, version);
  if (facts.unknown.empty()) return "";
  return "; " + UnknownFactsReason(facts.unknown) +
         "; migrate's preflight checks the live catalog";
}

// Why |d| can only move offline, or "" when the online copy can take it.
// From the workload's facts, by the rule the preflight applies
// (common/hash_rule.h); migrate's preflight checks the catalog again
// before changing anything.
std::string OfflineReason(const TableDemand& d, const Workload& w,
                          int version) {
  if (d.facts == nullptr) return "";
  const Relation& r = *d.facts;
  if (r.kind != RelationKind::kMaterializedView) {
    const std::string unread = FactsNotReadReason(r, w);
    if (!unread.empty()) return unread;
  }
  if (!HasRowKey(d)) return "no primary key or unique key";
  if (r.kind == RelationKind::kMaterializedView) {
    return "a materialized view is not copied online";
  }
  if (r.persistence == Persistence::kUnlogged) {
    return "unlogged (its online copy would not survive a crash)";
  }
  if (r.partitioned && r.kind != RelationKind::kPartitioned) {
    const std::string why = PartitionReason(r, w, version);
    if (!why.empty()) return why;
  }
  if (r.persistence || r.replica_identity) {
    const std::vector<std::string> swap =
        CheckOnlineSwap(RuleFacts(r, version));
    if (!swap.empty()) return swap.front();
  }
  const std::string view = DependentMatview(r, w);
  return view.empty() ? "" : MatviewReason(view);
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

// One tablespace per bin: pg_default on the data directory's volume, the
// stripe's new one, an existing tablespace on the volume, else a new one.
std::vector<TablespaceSpec> TablespacesOfBins(
    const PlanInputs& in, const Layout& layout,
    const std::optional<StripeState>& stripe) {
  std::vector<TablespaceSpec> specs(layout.bins.size());
  for (size_t b = 0; b < layout.bins.size(); ++b) {
    const int v = layout.bin_volume[b];
    TablespaceSpec& spec = specs[b];
    spec.volume = BinName(in, layout, stripe, static_cast<int>(b));
    if (v >= 0 && v == in.default_volume) {
      spec.name = "pg_default";
    } else if (v < 0) {
      spec.name = TablespaceNameFor(stripe->name);
      spec.path = ParentDirectory(in.volumes.volumes[stripe->members[0]].path) +
                  "/" + stripe->name + "/pg";
    } else {
      const Volume& vol = in.volumes.volumes[v];
      for (const TablespaceInfo& t : in.workload.tablespaces) {
        if (t.name.starts_with("pg_") || t.location.empty()) continue;
        if (VolumeOfLocation(in.volumes, LocationOf(in.workload, t.name))
                .volume != vol.name) {
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
  }
  return specs;
}

// Per table group, in the layout's order: hash partitions, a stay (listed
// when it loads its volume at least kShownLoad) or a move.
void PlaceEach(const PlanInputs& in, const Layout& layout,
               const RemedyPlan& remedies,
               const std::vector<TablespaceSpec>& bin_tablespace,
               TablePlacements* out) {
  const std::vector<PlaceItem>& items = layout.items;
  const std::vector<int>& bin_of = layout.result.bin_of;
  size_t i = 0;
  while (i < items.size()) {
    const int t = items[i].table;
    const TableDemand& d = in.tables[t];
    const int k = items[i].parts;
    Placement p;
    p.relation = d.table;
    p.online = in.live;
    if (k > 1) {
      p.strategy = Strategy::kHashPartition;
      p.partitions = k;
      for (int j = 0; j < k; ++j) {
        p.tablespaces.push_back(bin_tablespace[bin_of[i + j]].name);
      }
      for (const HotRelation& h : remedies.hot) {
        if (h.table != d.table) continue;
        p.key = h.partition.key;
        p.reason = h.why;
      }
      ++out->partitioned;
      out->placements.push_back(std::move(p));
      i += k;
      continue;
    }
    const int b = bin_of[i];
    const double load = Load(items[i], layout.bins[b]);
    const std::string& ts = bin_tablespace[b].name;
    const std::string bin_name = BinName(in, layout, remedies.stripe, b);
    const bool unknown = d.current_volume.empty();
    const bool stays = items[i].current == b || (unknown && ts == "pg_default");
    if (stays) {
      p.strategy = Strategy::kStay;
      p.reason = fmt::format(
          "stays on {}: {:.0f} read + {:.0f} write IOPS, {} "
          "of it",
          bin_name, d.read_iops, d.checkpoint_write_iops, Percent(load));
      if (load >= kShownLoad) out->placements.push_back(std::move(p));
      ++i;
      continue;
    }
    p.strategy = Strategy::kMove;
    p.tablespaces = {ts};
    p.reason =
        fmt::format("{} {}: {:.0f} read + {:.0f} write IOPS, {} of it, {}",
                    unknown ? "created on" : "from " + d.current_volume + " to",
                    bin_name, d.read_iops, d.checkpoint_write_iops,
                    Percent(load), HumanSize(static_cast<double>(d.bytes)));
    const std::string offline = OfflineReason(d, in.workload, in.version);
    if (p.online && !offline.empty()) {
      // migrate would refuse the online copy. The locking ALTER ... SET
      // TABLESPACE remains.
      p.online = false;
      p.reason += "; " + offline +
                  ", so it moves offline (ALTER ... SET TABLESPACE locks it "
                  "while its files are copied)";
    } else if (p.online) {
      p.reason += UnknownSwapFacts(d, in.version);
    }
    ++out->moves;
    out->placements.push_back(std::move(p));
    ++i;
  }
}

}  // namespace

TablePlacements PlaceTables(const PlanInputs& in, const Layout& layout,
                            const RemedyPlan& remedies) {
  TablePlacements out;
  std::vector<TablespaceSpec> specs =
      TablespacesOfBins(in, layout, remedies.stripe);
  PlaceEach(in, layout, remedies, specs, &out);
  const DeviceModel* reference =
      in.default_volume >= 0 ? &in.models[in.default_volume] : nullptr;
  for (size_t b = 0; b < layout.bins.size(); ++b) {
    TablespaceSpec& spec = specs[b];
    if (spec.name == "pg_default") continue;
    bool used = false;
    for (const Placement& p : out.placements) {
      used = used || std::count(p.tablespaces.begin(), p.tablespaces.end(),
                                spec.name) > 0;
    }
    if (!used) continue;
    spec.options =
        TablespaceOptions(*layout.bins[b].model, reference, in.version);
    out.tablespaces.push_back(std::move(spec));
  }
  return out;
}

}  // namespace pglayout::planner
