#include "planner/citus_plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "common/quote.h"
#include "common/text.h"
#include "common/units.h"
#include "planner/demand.h"
#include "planner/pools.h"
#include "planner/remedy.h"
#include "planner/verdicts.h"

namespace pglayout::planner {
namespace {

// Tables with a key name in common but sizes this far apart (three orders
// of magnitude) are not co-located without a foreign key: nothing says they
// are joined, and the small one would follow the big one's shard moves.
constexpr double kApartInSize = 1000;
constexpr uint64_t kMaxShardBytes = 50ull << 30;

// --------------------------------------------------- foreign key parsing --

// One identifier at s[*i]: "quoted ""x""" or bare (up to . , ( ) " or a
// space). The raw name (quotes removed, "" -> ") into *out.
bool ParseIdent(const std::string& s, size_t* i, std::string* out) {
  out->clear();
  if (*i >= s.size()) return false;
  if (s[*i] == '"') {
    for (size_t j = *i + 1; j < s.size(); ++j) {
      if (s[j] != '"') {
        out->push_back(s[j]);
      } else if (j + 1 < s.size() && s[j + 1] == '"') {
        out->push_back('"');
        ++j;
      } else {
        *i = j + 1;
        return true;
      }
    }
    return false;  // unclosed
  }
  size_t j = *i;
  while (j < s.size() && s[j] != '.' && s[j] != ',' && s[j] != '(' &&
         s[j] != ')' && s[j] != ' ' && s[j] != '"') {
    ++j;
  }
  if (j == *i) return false;
  *out = s.substr(*i, j - *i);
  *i = j;
  return true;
}

// "(a, "B c")" from s[*i] to the end of s.
bool ParseColumnsToEnd(const std::string& s, size_t i,
                       std::vector<std::string>* out) {
  out->clear();
  if (i >= s.size() || s[i] != '(') return false;
  ++i;
  for (;;) {
    while (i < s.size() && s[i] == ' ') ++i;
    std::string column;
    if (!ParseIdent(s, &i, &column)) return false;
    out->push_back(column);
    while (i < s.size() && s[i] == ' ') ++i;
    if (i < s.size() && s[i] == ',') {
      ++i;
      continue;
    }
    return i + 1 == s.size() && s[i] == ')';
  }
}

// "schema.table" or "schema.table (cols)".
bool ParseTarget(const std::string& s, ForeignKey* fk) {
  size_t i = 0;
  std::string part;
  for (;;) {
    if (!ParseIdent(s, &i, &part)) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      continue;
    }
    break;
  }
  fk->table = s.substr(0, i);
  if (i == s.size()) return true;
  return s[i] == ' ' && ParseColumnsToEnd(s, i + 1, &fk->ref_columns);
}

// "name" or "name (cols)": the column list is the last " (" whose rest
// parses (a constraint name may contain " (" itself).
bool ParseSource(const std::string& s, ForeignKey* fk) {
  if (s.empty()) return false;
  for (size_t at = s.rfind(" ("); at != std::string::npos && at > 0;
       at = s.rfind(" (", at - 1)) {
    if (ParseColumnsToEnd(s, at + 1, &fk->columns)) {
      fk->name = s.substr(0, at);
      return true;
    }
  }
  fk->columns.clear();
  fk->name = s;
  return true;
}

// -------------------------------------------------------------- the model --

// The root of |table|'s partition tree when the workload has it (a
// partitioned table), else |table| itself.
std::string PartitionRoot(const Workload& w, const std::string& table) {
  const Relation* r = w.Find(table);
  if (r == nullptr || r->partition_of.empty()) return table;
  const Relation* root = w.Find(r->partition_of);
  if (root == nullptr || root->kind != RelationKind::kPartitioned) return table;
  return root->name;
}

// Adds the partition |d| to its root's demand |root| (a partitioned table
// holds no data of its own: its size and I/O are its partitions').
void AddPartition(const TableDemand& d, TableDemand* root) {
  root->indexes.insert(root->indexes.end(), d.indexes.begin(), d.indexes.end());
  root->heap_bytes += d.heap_bytes;
  root->bytes += d.bytes;
  root->bytes_needed += d.bytes_needed;
  root->read_iops += d.read_iops;
  root->write_iops += d.write_iops;
  root->checkpoint_write_iops += d.checkpoint_write_iops;
  root->backup_bytes_per_second += d.backup_bytes_per_second;
}

double ChangesPerSecond(const Relation& f) {
  return f.inserts_per_second + f.updates_per_second + f.deletes_per_second;
}

struct Node {
  const TableDemand* demand = nullptr;
  CitusTable t;
  std::vector<ForeignKey> fks;             // to tables in the workload
  std::vector<std::string> referenced_by;  // tables with a key to it
  bool small_read_mostly = false;
  bool partition = false;
  bool matview = false;
};

class Builder {
 public:
  Builder(const Workload& w, const PlanOptions& o, const CitusOptions& c)
      : w_(w), opt_(o), citus_(c) {}

  Status Run(Distribution* out) {
    PGLAYOUT_RETURN_IF_ERROR(Load());
    for (const auto& [table, columns] : citus_.keys) {
      if (nodes_.count(table) == 0) {
        return Status::InvalidInput(
            fmt::format("--key {}: no such table in the workload", table));
      }
    }
    InitialRoles();
    ReferenceClosure();
    Order();
    for (const std::string& name : order_) ChooseColumn(&nodes_.at(name));
    ReferenceClosure();  // a demoted parent may leave a reference orphaned
    Groups(out);
    Keys(out);
    Assemble(out);
    return Status::Ok();
  }

 private:
  Status Load() {
    WalDemand wal;
    VolumeSet none;
    PGLAYOUT_RETURN_IF_ERROR(
        BuildDemand(w_, none, DemandOptionsFor(opt_, w_), &demands_, &wal));
    FoldPartitions();
    for (const TableDemand& d : demands_) {
      if (PartitionRoot(w_, d.table) != d.table) continue;  // in its root
      Node n;
      n.demand = &d;
      n.t.table = d.table;
      n.t.bytes = d.bytes;
      n.t.bytes_needed = d.bytes_needed;
      n.t.read_iops = d.read_iops;
      n.t.write_iops = d.checkpoint_write_iops;
      const Relation& f = *d.facts;
      n.t.changes_per_second = ChangesPerSecond(f);
      if (auto it = partition_changes_.find(d.table);
          it != partition_changes_.end()) {
        n.t.changes_per_second = it->second;
      }
      n.small_read_mostly =
          d.bytes_needed <= citus_.reference_max_bytes &&
          n.t.changes_per_second <= citus_.reference_max_changes;
      n.matview = f.kind == RelationKind::kMaterializedView;
      // A partition whose root is not in the workload; a partitioned table
      // of its own (kind partitioned) is distributed like any table.
      n.partition = f.partitioned && f.kind != RelationKind::kPartitioned;
      nodes_.emplace(d.table, std::move(n));
    }
    for (auto& [name, n] : nodes_) {
      for (const std::string& text : n.demand->facts->foreign_keys_out) {
        ForeignKey fk;
        if (!ParseForeignKey(text, &fk)) {
          n.t.cautions.push_back(fmt::format(
              "foreign key '{}' is not understood: left out of the plan",
              text));
          continue;
        }
        auto target = nodes_.find(fk.table);
        if (target == nodes_.end()) continue;  // a partition, or not here
        if (fk.table != name) {
          target->second.referenced_by.push_back(name);
          n.t.references.push_back(fk.table);
        }
        n.fks.push_back(std::move(fk));
      }
    }
    return Status::Ok();
  }

  // BuildDemand skips partitioned tables (no storage); Citus distributes
  // one with its partitions, so each root present in the workload gets a
  // demand of its own, the sum of its partitions', and the partitions none.
  void FoldPartitions() {
    std::map<std::string, TableDemand> roots;
    for (const TableDemand& d : demands_) {
      const std::string root = PartitionRoot(w_, d.table);
      if (root == d.table) continue;
      auto [it, fresh] = roots.try_emplace(root);
      if (fresh) {
        it->second.table = root;
        it->second.facts = w_.Find(root);
        it->second.tablespace = d.tablespace;
      }
      AddPartition(d, &it->second);
      partition_changes_[root] += ChangesPerSecond(*d.facts);
    }
    // demands_ is not resized after this: nodes point into it.
    for (auto& [name, d] : roots) demands_.push_back(std::move(d));
  }

  void InitialRoles() {
    for (auto& [name, n] : nodes_) {
      if (n.matview) {
        SetLocal(&n,
                 "a materialized view: Citus does not distribute one; it "
                 "stays on the coordinator");
      } else if (n.partition) {
        SetLocal(&n,
                 "a partition whose partitioned table is not in the workload "
                 "(observed by an older pglayout, or left out): Citus "
                 "distributes a partitioned table through its root, "
                 "partitions included; observe again, or distribute the root "
                 "by hand");
      } else if (n.small_read_mostly && !n.referenced_by.empty() &&
                 citus_.keys.count(name) == 0) {
        n.t.role = CitusRole::kReference;
        n.t.why = fmt::format(
            "small ({} at the horizon, at most {}) and read-mostly ({:.3g} "
            "row changes/s, at most {:.3g}), referenced by {}: a copy on "
            "every worker joins locally with every shard",
            FormatSize(n.t.bytes_needed),
            FormatSize(citus_.reference_max_bytes), n.t.changes_per_second,
            citus_.reference_max_changes, fmt::join(n.referenced_by, ", "));
      } else if (n.small_read_mostly && n.fks.empty() &&
                 n.referenced_by.empty() && citus_.keys.count(name) == 0) {
        SetLocal(&n,
                 "small and read-mostly, joined to no other table by a "
                 "foreign key: distributing it gains nothing");
      } else {
        n.t.role = CitusRole::kDistributed;
      }
    }
  }

  static void SetLocal(Node* n, const std::string& why) {
    n->t.role = CitusRole::kLocal;
    n->t.column.clear();
    n->t.why = why;
  }

  // A reference table's foreign keys must lead to reference tables: Citus
  // keeps none from a reference table to a distributed or local one.
  void ReferenceClosure() {
    for (bool changed = true; changed;) {
      changed = false;
      for (auto& [name, n] : nodes_) {
        if (n.t.role != CitusRole::kReference) continue;
        for (const ForeignKey& fk : n.fks) {
          Node& p = nodes_.at(fk.table);
          if (p.t.role == CitusRole::kDistributed) {
            n.t.role = CitusRole::kDistributed;
            n.t.why = fmt::format(
                "would be a reference table, but references the "
                "distributed table {} ({}), and Citus keeps no foreign key "
                "from a reference table to a distributed one",
                fk.table, fk.name);
            changed = true;
            break;
          }
          if (p.t.role == CitusRole::kLocal && !p.matview && !p.partition &&
              p.small_read_mostly) {
            p.t.role = CitusRole::kReference;
            p.t.why = fmt::format(
                "small and read-mostly, referenced by the reference table {}",
                name);
            changed = true;
          }
        }
      }
    }
  }

  // Parents before children along the foreign keys (a depth-first walk,
  // tables by name); a key back to a table still on the walk's path closes
  // a cycle and is remembered.
  void Order() {
    std::set<std::string> done, on_path;
    std::function<void(const std::string&)> visit = [&](const std::string& t) {
      if (done.count(t)) return;
      done.insert(t);
      on_path.insert(t);
      const Node& n = nodes_.at(t);
      for (const ForeignKey& fk : n.fks) {
        if (fk.table == t) continue;
        if (on_path.count(fk.table)) {
          cycle_keys_.insert({t, fk.name});
          continue;
        }
        visit(fk.table);
      }
      on_path.erase(t);
      order_.push_back(t);
    };
    for (const auto& [name, n] : nodes_) visit(name);
  }

  void ChooseColumn(Node* n) {
    if (n->t.role != CitusRole::kDistributed) return;
    const Relation& facts = *n->demand->facts;
    if (auto key = citus_.keys.find(n->t.table); key != citus_.keys.end()) {
      if (key->second.size() != 1) {
        SetLocal(n, fmt::format("--key gives {} columns; Citus distributes a "
                                "table by one column",
                                key->second.size()));
        return;
      }
      const PartitionCheck check = CheckHashKey(facts, key->second);
      if (!check.feasible()) {
        SetLocal(n, fmt::format("cannot be distributed by {} (--key): {}",
                                DisplayIdent(key->second[0]),
                                fmt::join(check.blockers, "; ")));
        return;
      }
      n->t.column = key->second[0];
      n->t.why = fmt::format("distributed by {}, as --key gives",
                             DisplayIdent(n->t.column));
      return;
    }
    std::vector<std::string> cannot_follow;
    const ForeignKey* best = nullptr;
    std::string best_column;
    uint64_t best_bytes = 0;
    for (const ForeignKey& fk : n->fks) {
      const Node& p = nodes_.at(fk.table);
      if (fk.table == n->t.table || p.t.role != CitusRole::kDistributed ||
          p.t.column.empty()) {
        continue;
      }
      std::string column;
      if (!FollowColumn(fk, p, facts, &column, &cannot_follow)) continue;
      if (best == nullptr || p.t.bytes_needed > best_bytes) {
        best = &fk;
        best_column = column;
        best_bytes = p.t.bytes_needed;
      }
    }
    if (best != nullptr) {
      n->t.column = best_column;
      n->t.why = fmt::format(
          "follows {} through its foreign key {}: distributed by {}, "
          "co-located with it",
          best->table, best->name, DisplayIdent(best_column));
      return;
    }
    OwnColumn(n, facts);
    if (!cannot_follow.empty() && n->t.role == CitusRole::kDistributed) {
      not_following_.push_back(
          fmt::format("{}: {}", n->t.table, fmt::join(cannot_follow, "; ")));
    }
  }

  // The column of |n| that the foreign key |fk| pairs with the parent's
  // distribution column, when the key rules allow it.
  bool FollowColumn(const ForeignKey& fk, const Node& p, const Relation& facts,
                    std::string* column, std::vector<std::string>* why_not) {
    if (fk.columns.empty() || fk.columns.size() != fk.ref_columns.size()) {
      why_not->push_back(fmt::format(
          "the columns of its foreign key {} to {} are not in the workload "
          "(observed by an older pglayout: observe again)",
          fk.name, fk.table));
      return false;
    }
    auto at =
        std::find(fk.ref_columns.begin(), fk.ref_columns.end(), p.t.column);
    if (at == fk.ref_columns.end()) {
      why_not->push_back(fmt::format(
          "its foreign key {} references {} ({}), not its distribution "
          "column {}",
          fk.name, fk.table, DisplayIdentList(fk.ref_columns),
          DisplayIdent(p.t.column)));
      return false;
    }
    *column = fk.columns[at - fk.ref_columns.begin()];
    const PartitionCheck check = CheckHashKey(facts, {*column});
    if (!check.feasible()) {
      why_not->push_back(fmt::format(
          "cannot be distributed by {} to follow {} (foreign key {}): {}",
          DisplayIdent(*column), fk.table, fk.name,
          fmt::join(check.blockers, "; ")));
      return false;
    }
    return true;
  }

  // A column of its own: the first of the primary key, then of the unique
  // keys, that every unique key contains.
  void OwnColumn(Node* n, const Relation& facts) {
    std::vector<std::string> columns = facts.primary_key;
    for (const auto& unique : facts.unique_keys) {
      columns.insert(columns.end(), unique.begin(), unique.end());
    }
    PartitionCheck first;
    bool tried = false;
    for (const std::string& column : columns) {
      const PartitionCheck check = CheckHashKey(facts, {column});
      if (check.feasible()) {
        n->t.column = column;
        if (n->t.why.empty()) {
          n->t.why = fmt::format(
              "distributed by {}, a column every unique key contains",
              DisplayIdent(column));
        } else {
          n->t.why += fmt::format("; distributed by {}", DisplayIdent(column));
        }
        return;
      }
      if (!tried) first = check;
      tried = true;
    }
    if (!tried) first = CheckHashKey(facts, {});
    SetLocal(n, fmt::format("no column to distribute by: {}; it stays on "
                            "the coordinator",
                            fmt::join(first.blockers, "; ")));
  }

  // Whether |fk| of |n| carries both distribution columns in one position.
  bool Aligned(const Node& n, const ForeignKey& fk, const Node& p) const {
    for (size_t i = 0; i < fk.columns.size() && i < fk.ref_columns.size();
         ++i) {
      if (fk.columns[i] == n.t.column && fk.ref_columns[i] == p.t.column) {
        return true;
      }
    }
    return false;
  }

  // The type the workload records for |n|'s distribution column; "" when
  // it records none (a file observed before types were recorded, or a
  // --key column outside every key).
  static std::string ColumnType(const Node& n) {
    for (const std::vector<std::string>& pair : n.demand->facts->column_types) {
      if (pair.size() == 2 && pair[0] == n.t.column) return pair[1];
    }
    return "";
  }

  // Why tables |a| and |b| (indices into the distributed tables), of one
  // key name, are not paired: "" when they are.
  std::string Unpaired(const std::vector<std::string>& dist, int a,
                       int b) const {
    const Node& x = nodes_.at(dist[a]);
    const Node& y = nodes_.at(dist[b]);
    const std::string tx = ColumnType(x), ty = ColumnType(y);
    if (tx.empty() || ty.empty()) {
      std::vector<std::string> untyped;
      if (tx.empty()) untyped.push_back(dist[a]);
      if (ty.empty()) untyped.push_back(dist[b]);
      return fmt::format(
          "the workload records no type of {} for {} (observe again to record "
          "it), and Citus co-locates by type: not co-located on the name "
          "alone",
          DisplayIdent(x.t.column), fmt::join(untyped, " and "));
    }
    if (tx != ty) {
      return fmt::format(
          "as {} against {}: Citus co-locates only distribution columns of "
          "one type",
          DisplayName(ty), DisplayName(tx));
    }
    const double sx = static_cast<double>(std::max<uint64_t>(x.t.bytes, 1));
    const double sy = static_cast<double>(std::max<uint64_t>(y.t.bytes, 1));
    if (std::max(sx, sy) >= kApartInSize * std::min(sx, sy)) {
      return fmt::format(
          "their sizes ({}, {}) are orders of magnitude apart and no foreign "
          "key joins them (co-locate them by hand if they are joined)",
          HumanSize(sy), HumanSize(sx));
    }
    return "";
  }

  // Tables distributed by columns of the same name and type, other than
  // "id", join one group (each with the first such table before it),
  // unless they are three orders of magnitude apart in size with no
  // foreign key between them. A pair left apart, by its sizes, its types or
  // types the workload does not record, goes to |unpaired_| with why.
  void SameKeyEdges(const std::vector<std::string>& dist,
                    std::vector<std::pair<int, int>>* same) {
    for (size_t i = 0; i < dist.size(); ++i) {
      const Node& n = nodes_.at(dist[i]);
      // "id" is each table's own surrogate key: the same name says nothing
      // about a join.
      if (n.t.column == "id") continue;
      // A foreign key still decides: one between it and an earlier table of
      // the same key name that does not pair the columns says they are
      // joined by something else.
      int first = -1;
      bool keyed = false;
      for (size_t j = 0; j < i; ++j) {
        const Node& o = nodes_.at(dist[j]);
        if (o.t.column != n.t.column) continue;
        if (Refers(n, dist[j]) || Refers(o, dist[i])) keyed = true;
        if (first < 0) first = static_cast<int>(j);
      }
      if (keyed || first < 0) continue;
      const int self = static_cast<int>(i);
      bool paired = false;
      for (int j = first; j < self && !paired; ++j) {
        if (nodes_.at(dist[j]).t.column != n.t.column) continue;
        if (Unpaired(dist, j, self).empty()) {
          same->push_back({j, self});
          paired = true;
        }
      }
      if (!paired)
        unpaired_.push_back({first, self, Unpaired(dist, first, self)});
    }
  }

  // Whether |n| has a foreign key to |table|.
  static bool Refers(const Node& n, const std::string& table) {
    return std::any_of(n.fks.begin(), n.fks.end(),
                       [&](const ForeignKey& fk) { return fk.table == table; });
  }

  // Co-location groups: connected components over the aligned keys and
  // the shared key names.
  void Groups(Distribution* out) {
    std::vector<std::string> dist;  // in creation order
    std::map<std::string, int> index;
    for (const std::string& name : order_) {
      if (nodes_.at(name).t.role != CitusRole::kDistributed) continue;
      index[name] = static_cast<int>(dist.size());
      dist.push_back(name);
    }
    using Graph =
        boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
    std::vector<ColocationGroup::Edge> edges;
    Graph g(dist.size());
    for (const std::string& name : dist) {
      const Node& n = nodes_.at(name);
      for (const ForeignKey& fk : n.fks) {
        const Node& p = nodes_.at(fk.table);
        if (p.t.role == CitusRole::kDistributed && Aligned(n, fk, p)) {
          boost::add_edge(index[name], index[fk.table], g);
          edges.push_back({name, fk.table, fk.name});
        }
      }
    }
    std::vector<std::pair<int, int>> same;
    SameKeyEdges(dist, &same);
    // A shared name is evidence only where no foreign key joins them yet.
    std::vector<int> by_keys(dist.size());
    if (!dist.empty()) boost::connected_components(g, by_keys.data());
    std::erase_if(same, [&](const std::pair<int, int>& e) {
      return by_keys[e.first] == by_keys[e.second];
    });
    for (const auto& [a, b] : same) boost::add_edge(a, b, g);
    std::vector<int> component(dist.size());
    if (!dist.empty()) boost::connected_components(g, component.data());
    for (const UnpairedKey& u : unpaired_) {
      if (component[u.a] == component[u.b]) continue;
      not_following_.push_back(fmt::format(
          "{}: distributed by {} like {}, but {}: a group of its own",
          dist[u.b], DisplayIdent(nodes_.at(dist[u.b]).t.column), dist[u.a],
          u.why));
    }
    std::map<int, int> group_of_component;  // by first appearance
    for (size_t i = 0; i < dist.size(); ++i) {
      auto [it, fresh] = group_of_component.emplace(
          component[i], static_cast<int>(out->groups.size()));
      if (fresh) {
        out->groups.emplace_back();
        out->groups.back().anchor = dist[i];
      }
      ColocationGroup& group = out->groups[it->second];
      Node& n = nodes_.at(dist[i]);
      n.t.group = it->second;
      n.t.colocate_with = fresh ? "none" : group.anchor;
      group.tables.push_back(dist[i]);
      group.bytes_needed += n.t.bytes_needed;
    }
    for (const ColocationGroup::Edge& e : edges) {
      ColocationGroup& group = out->groups[nodes_.at(e.from).t.group];
      group.edges.push_back(e);
      group.evidence.push_back(
          fmt::format("foreign key {} ({} -> {})", e.constraint, e.from, e.to));
    }
    for (const auto& [a, b] : same) {
      out->groups[nodes_.at(dist[a]).t.group].evidence.push_back(fmt::format(
          "{} and {} are both distributed by {} {} (the same key name and "
          "type)",
          dist[a], dist[b], DisplayIdent(nodes_.at(dist[a]).t.column),
          DisplayName(ColumnType(nodes_.at(dist[a])))));
    }
    for (ColocationGroup& group : out->groups) {
      std::vector<std::string> columns;
      for (const std::string& t : group.tables) {
        const std::string c = DisplayIdent(nodes_.at(t).t.column);
        if (std::find(columns.begin(), columns.end(), c) == columns.end()) {
          columns.push_back(c);
        }
      }
      group.column_note = fmt::format("{}", fmt::join(columns, " / "));
    }
  }

  // Foreign keys Citus would refuse, and the cautions of each table.
  void Keys(Distribution* out) {
    for (const std::string& name : order_) {
      Node& n = nodes_.at(name);
      for (const ForeignKey& fk : n.fks) {
        const Node& p = nodes_.at(fk.table);
        std::string why = KeyProblem(n, fk, p);
        if (why.empty() && cycle_keys_.count({name, fk.name}) &&
            n.t.role != CitusRole::kLocal && p.t.role != CitusRole::kLocal) {
          why =
              "closes a cycle of foreign keys: Citus distributes one table "
              "at a time and refuses a key to a table not yet distributed; "
              "drop it before and re-create it after citus.sql";
        }
        if (!why.empty()) out->dropped_keys.push_back({name, fk.name, why});
      }
      AddCautions(&n);
    }
  }

  std::string KeyProblem(const Node& n, const ForeignKey& fk,
                         const Node& p) const {
    const CitusRole a = n.t.role, b = p.t.role;
    if (a == CitusRole::kDistributed && b == CitusRole::kDistributed) {
      if (Aligned(n, fk, p)) return "";
      if (fk.columns.empty()) {
        return fmt::format(
            "the workload does not record its columns (observe again), and "
            "Citus keeps a foreign key between distributed tables only when "
            "it pairs their distribution columns ({} with {}.{})",
            DisplayIdent(n.t.column), fk.table, DisplayIdent(p.t.column));
      }
      return fmt::format(
          "Citus keeps a foreign key between distributed tables only when it "
          "pairs their distribution columns ({} with {}.{}); this one is ({}) "
          "-> {} ({}): drop it, or re-key the tables to co-locate them",
          DisplayIdent(n.t.column), fk.table, DisplayIdent(p.t.column),
          DisplayIdentList(fk.columns), fk.table,
          DisplayIdentList(fk.ref_columns));
    }
    if (a == CitusRole::kDistributed && b == CitusRole::kLocal) {
      return fmt::format(
          "references {}, which stays on the coordinator: Citus keeps no "
          "foreign key from a distributed table to a local one",
          fk.table);
    }
    if (a == CitusRole::kReference && b != CitusRole::kReference) {
      return fmt::format(
          "references {}, which is not a reference table: Citus keeps a "
          "reference table's foreign keys only to reference tables",
          fk.table);
    }
    if (a == CitusRole::kLocal && b == CitusRole::kDistributed) {
      return fmt::format(
          "references the distributed table {} from a table that stays on "
          "the coordinator: Citus keeps no such foreign key",
          fk.table);
    }
    return "";
  }

  // What Citus asks beyond the key rules (docs/citus.md#cautions).
  void AddCautions(Node* n) const {
    const Relation& f = *n->demand->facts;
    if (n->t.role == CitusRole::kLocal) {
      for (const ForeignKey& fk : n->fks) {
        if (nodes_.at(fk.table).t.role == CitusRole::kReference) {
          n->t.cautions.push_back(fmt::format(
              "its foreign key {} to the reference table {} needs the "
              "coordinator in the metadata (citus_set_coordinator_host)",
              fk.name, fk.table));
        }
      }
      return;
    }
    if (!f.triggers.empty()) {
      n->t.cautions.push_back(fmt::format(
          "trigger(s) {}: Citus runs triggers on a distributed or reference "
          "table's shards only with citus.enable_unsafe_triggers = on, and a "
          "trigger may touch only co-located rows",
          DisplayIdentList(f.triggers)));
    }
    if (!f.identity_columns.empty()) {
      n->t.cautions.push_back(fmt::format(
          "identity column(s) {}: Citus accepts identity columns on "
          "distributed tables only as bigint (check their type)",
          DisplayIdentList(f.identity_columns)));
    }
    if (!f.publications.empty()) {
      n->t.cautions.push_back(fmt::format(
          "in publication(s) {}: once distributed, its rows live on the "
          "workers; a subscriber of the coordinator's publication no longer "
          "receives them",
          DisplayIdentList(f.publications)));
    }
    if (n->t.role == CitusRole::kDistributed && n->t.group >= 0 &&
        n->t.colocate_with != "none") {
      TypeCaution(n);
    }
  }

  // Citus refuses colocate_with across distribution column types; a
  // foreign key may pair an integer with a bigint.
  void TypeCaution(Node* n) const {
    const Node& anchor = nodes_.at(n->t.colocate_with);
    const std::string mine = ColumnType(*n), theirs = ColumnType(anchor);
    if (mine.empty() || theirs.empty()) {
      n->t.cautions.push_back(
          "the workload records no type of its distribution column or its "
          "anchor's: co-location needs one type (Citus checks it)");
    } else if (mine != theirs) {
      n->t.cautions.push_back(fmt::format(
          "its distribution column {} is {}, its anchor {}'s {} is {}: Citus "
          "refuses to co-locate them until both have one type",
          DisplayIdent(n->t.column), DisplayName(mine), anchor.t.table,
          DisplayIdent(anchor.t.column), DisplayName(theirs)));
    }
  }

  void Assemble(Distribution* out) {
    for (const std::string& name : order_) {
      if (nodes_.at(name).t.role == CitusRole::kReference) {
        out->tables.push_back(nodes_.at(name).t);
      }
    }
    for (const std::string& name : order_) {
      if (nodes_.at(name).t.role == CitusRole::kDistributed) {
        out->tables.push_back(nodes_.at(name).t);
      }
    }
    for (const auto& [name, n] : nodes_) {
      if (n.t.role == CitusRole::kLocal) out->tables.push_back(n.t);
    }
    out->not_following = not_following_;
  }

  const Workload& w_;
  const PlanOptions& opt_;
  const CitusOptions& citus_;
  std::vector<TableDemand> demands_;
  std::map<std::string, double> partition_changes_;  // root -> row changes/s
  std::map<std::string, Node> nodes_;
  std::vector<std::string> order_;
  std::set<std::pair<std::string, std::string>> cycle_keys_;
  std::vector<std::string> not_following_;
  // Pairs (indices into the distributed tables) with a key name in common
  // that SameKeyEdges left apart, with why.
  struct UnpairedKey {
    int a = 0, b = 0;
    std::string why;
  };
  std::vector<UnpairedKey> unpaired_;
};

// ----------------------------------------------------------------- sizing --

// The table whose group |r| belongs to (an index or TOAST relation follows
// its table, a TOAST index its TOAST relation's table; a partition, with
// its indexes and TOAST, its root: Citus distributes the tree as one).
std::string OwnerOf(const Relation& r, const Workload& w) {
  std::string table = r.name;
  if (r.kind == RelationKind::kIndex || r.kind == RelationKind::kToast) {
    const Relation* owner = w.Find(r.table);
    table = owner != nullptr && owner->kind == RelationKind::kToast
                ? owner->table
                : r.table;
  }
  return PartitionRoot(w, table);
}

// A worker's part of |r|: 1/n of a distributed table (|whole| false); of a
// reference table (|whole| true), all of its bytes and writes, its reads
// spread.
void Share(double n, bool whole, Relation* r) {
  r->read_iops /= n;
  r->read_iops_avg /= n;
  r->hits_per_second /= n;
  if (whole) return;
  r->size = static_cast<uint64_t>(std::llround(r->size / n));
  r->write_iops /= n;
  r->write_iops_avg /= n;
  r->inserts_per_second /= n;
  r->updates_per_second /= n;
  r->deletes_per_second /= n;
  r->growth_bytes_per_second /= n;
}

// A node's workload: the relations |keep| returns a share for (<0: left
// out), with the same settings, as a new build (no tablespaces, no
// locations), and |wal_share| of the WAL.
Workload NodeWorkload(
    const Workload& w, double wal_share,
    const std::function<bool(const Relation&, Relation*)>& take) {
  Workload out;
  out.settings = w.settings;
  out.settings.erase("data_directory");
  out.duration = w.duration;
  out.source = "hand";
  out.write_method = w.write_method;
  out.checkpoints = w.checkpoints;
  if (w.wal_bytes_per_second) {
    out.wal_bytes_per_second = *w.wal_bytes_per_second * wal_share;
  }
  out.wal_bytes_per_second_peak = w.wal_bytes_per_second_peak * wal_share;
  out.commits_per_second = w.commits_per_second * wal_share;
  if (w.wal_syncs_per_second) {
    out.wal_syncs_per_second = *w.wal_syncs_per_second * wal_share;
  }
  for (const Relation& r : w.relations) {
    Relation copy = r;
    copy.tablespace.clear();
    if (take(r, &copy)) out.relations.push_back(std::move(copy));
  }
  return out;
}

// Writes (8 KiB blocks/s) of the tables in |role|.
double Writes(const Workload& w, const Distribution& d, CitusRole role) {
  double sum = 0;
  for (const Relation& r : w.relations) {
    const CitusTable* t = d.Find(OwnerOf(r, w));
    if (t != nullptr && t->role == role) sum += r.write_iops;
  }
  return sum;
}

double AllWrites(const Workload& w, const Distribution& d) {
  return Writes(w, d, CitusRole::kDistributed) +
         Writes(w, d, CitusRole::kReference) + Writes(w, d, CitusRole::kLocal);
}

std::string Pct(double f) { return fmt::format("{:.0f}%", f * 100); }

// The pools of |outcome| above the target (the instance's storage caps,
// what probe --concurrent measured), judged as the single-host fit verdict
// judges them; "" when none.
std::string PoolsOverTarget(const PlanOutcome& outcome) {
  std::vector<std::string> over;
  for (const PoolForecast* p : AboveTargetPools(outcome.plan, outcome.pools)) {
    over.push_back(fmt::format("{} at {} ({})", p->name,
                               Percent(p->utilization), p->detail));
  }
  return fmt::format("{}", fmt::join(over, "; "));
}

// The headline verdict of a node's plan ("fits: ..." or "does not fit...").
std::string Headline(const PlanOutcome& outcome) {
  for (const std::string& v : outcome.plan.verdicts) {
    if (v.starts_with("fits") || v.starts_with("does not fit")) return v;
  }
  return "";
}

// Plans one node: its forecast, and whether it meets the target.
NodeForecast ForecastNode(const std::string& name, const Workload& workload,
                          const WorkerVolumes& volumes,
                          const PlanOptions& options) {
  NodeForecast f;
  f.name = name;
  for (const Relation& r : workload.relations) {
    f.bytes += r.size;
    f.read_iops += r.read_iops;
    f.write_iops += r.write_iops;
  }
  PlanOutcome outcome;
  if (volumes.catalog != nullptr) {
    CapacityPlan capacity;
    const Status st = PlanCapacity(*volumes.catalog, workload, options,
                                   volumes.capacity, &capacity);
    if (!st.ok() || !capacity.found) {
      f.note = st.ok() ? capacity.verdict : st.message();
      return f;
    }
    outcome = std::move(capacity.outcome);
    f.price = capacity.total;
    f.note = fmt::format("{:.2f} {} per month for its volumes; ",
                         capacity.total, capacity.currency);
  } else {
    const Status st = BuildPlan(*volumes.volumes, workload, options, &outcome);
    if (!st.ok()) {
      f.note = st.message();
      return f;
    }
  }
  f.max_utilization = outcome.max_utilization;
  f.volumes = outcome.plan.forecast;
  const std::string pools = PoolsOverTarget(outcome);
  f.fits = pools.empty() &&
           !AboveTarget(outcome.max_utilization, options.target_utilization);
  f.note += Headline(outcome);
  if (!pools.empty()) f.note += "; over the target: " + pools;
  return f;
}

uint64_t LargestDistributed(const Distribution& d) {
  uint64_t largest = 0;
  for (const CitusTable& t : d.tables) {
    if (t.role == CitusRole::kDistributed) {
      largest = std::max(largest, t.bytes_needed);
    }
  }
  return largest;
}

}  // namespace

// ------------------------------------------------------------- public API --

bool ParseForeignKey(const std::string& text, ForeignKey* out) {
  ForeignKey fk;
  for (size_t at = text.rfind(" -> "); at != std::string::npos;
       at = at == 0 ? std::string::npos : text.rfind(" -> ", at - 1)) {
    fk = ForeignKey();
    // Both sides with columns, or neither (the older form).
    if (ParseSource(text.substr(0, at), &fk) &&
        ParseTarget(text.substr(at + 4), &fk) &&
        fk.columns.empty() == fk.ref_columns.empty()) {
      *out = std::move(fk);
      return true;
    }
  }
  return false;
}

const char* CitusRoleName(CitusRole role) {
  switch (role) {
    case CitusRole::kDistributed:
      return "distributed";
    case CitusRole::kReference:
      return "reference";
    case CitusRole::kLocal:
      return "local";
  }
  return "local";
}

const CitusTable* Distribution::Find(const std::string& table) const {
  for (const CitusTable& t : tables) {
    if (t.table == table) return &t;
  }
  return nullptr;
}

Status BuildDistribution(const Workload& workload, const PlanOptions& options,
                         const CitusOptions& citus, Distribution* out) {
  Distribution d;
  Builder builder(workload, options, citus);
  PGLAYOUT_RETURN_IF_ERROR(builder.Run(&d));
  *out = std::move(d);
  return Status::Ok();
}

int ShardCount(int workers, uint64_t largest_table_bytes, std::string* why) {
  int per_worker = 8;
  while (workers * per_worker < 32) per_worker *= 2;
  *why = fmt::format(
      "{} per worker x {} workers: a multiple of the workers, so the shards "
      "spread evenly; {} per worker lets the cluster double twice and keep "
      "at least two per worker (citus_rebalance_start moves whole shards), "
      "and at least 32, Citus's default",
      per_worker, workers, per_worker);
  bool doubled = false;
  while (per_worker < 1024 &&
         largest_table_bytes / static_cast<uint64_t>(workers * per_worker) >
             kMaxShardBytes) {
    per_worker *= 2;
    doubled = true;
  }
  if (doubled) {
    *why = fmt::format(
        "{} per worker x {} workers: doubled until a shard of the largest "
        "table ({} at the horizon) is at most {} (a shard moves whole; "
        "smaller ones rebalance faster); a multiple of the workers, so the "
        "shards spread evenly",
        per_worker, workers, FormatSize(largest_table_bytes),
        FormatSize(kMaxShardBytes));
  }
  return workers * per_worker;
}

Workload WorkerWorkload(const Workload& workload, const Distribution& d,
                        int workers) {
  const double n = workers;
  const double all = AllWrites(workload, d);
  const double mine = Writes(workload, d, CitusRole::kDistributed) / n +
                      Writes(workload, d, CitusRole::kReference);
  const double share = all > 0 ? mine / all : 1 / n;
  return NodeWorkload(workload, share, [&](const Relation& r, Relation* out) {
    if (r.kind == RelationKind::kPartitioned) return false;
    const CitusTable* t = d.Find(OwnerOf(r, workload));
    if (t == nullptr || t->role == CitusRole::kLocal) return false;
    // A shard set holds 1/n of a distributed table; a reference table is
    // whole on every worker, its writes applied on each, its reads spread.
    Share(n, t->role == CitusRole::kReference, out);
    return true;
  });
}

Workload CoordinatorWorkload(const Workload& workload, const Distribution& d) {
  const double all = AllWrites(workload, d);
  const double share =
      all > 0 ? Writes(workload, d, CitusRole::kLocal) / all : 0;
  return NodeWorkload(workload, share, [&](const Relation& r, Relation*) {
    const CitusTable* t = d.Find(OwnerOf(r, workload));
    return t != nullptr && t->role == CitusRole::kLocal;
  });
}

namespace {

// The busiest volume of the host today, with the whole workload where it
// is now; 0 when its volumes or where the data lives are not known.
double HostToday(const VolumeSet& volumes, const Workload& workload) {
  std::vector<ForecastEntry> load;
  if (volumes.volumes.empty() ||
      !LoadWhereItIs(volumes, workload, &load).ok()) {
    return 0;
  }
  double worst = 0;
  for (const ForecastEntry& e : load) {
    worst = std::max(worst, e.utilization_before);
  }
  return worst;
}

}  // namespace

bool SingleHostFallsShort(const PlanOutcome& outcome,
                          const PlanOptions& options, std::string* why) {
  std::vector<std::string> reasons;
  // Above the target while a perfect spread on this host is within it: the
  // layout falls short (too few partitions), not the host.
  if (AboveTarget(outcome.max_utilization, options.target_utilization) &&
      AboveTarget(outcome.bound.max_utilization, options.target_utilization)) {
    reasons.push_back(fmt::format(
        "the busiest data volume of the single-host plan would be at {}, "
        "over the {} target",
        Pct(outcome.max_utilization), Pct(options.target_utilization)));
  }
  if (std::string pools = PoolsOverTarget(outcome); !pools.empty()) {
    reasons.push_back("over the target: " + pools);
  }
  *why = fmt::format("{}", fmt::join(reasons, "; "));
  return !reasons.empty();
}

Status PlanCitus(const Workload& workload, const PlanOptions& options,
                 const CitusOptions& citus, const WorkerVolumes& workers,
                 const VolumeSet* coordinator, const std::string& reason,
                 CitusPlan* out) {
  if (citus.workers == 1 || citus.workers < 0) {
    return Status::InvalidInput(
        fmt::format("--hosts {}: a distribution needs at least 2 worker hosts",
                    citus.workers));
  }
  if (citus.shard_count < 0) {
    return Status::InvalidInput("--shard-count must be positive");
  }
  if (workers.volumes == nullptr && workers.catalog == nullptr) {
    return Status::InvalidInput(
        "a distribution needs the workers' volumes: --worker-volumes FILE or "
        "--catalog");
  }
  CitusPlan plan;
  plan.reason = reason;
  plan.worker_volumes = workers.description;
  plan.reference_max_bytes = citus.reference_max_bytes;
  plan.reference_max_changes = citus.reference_max_changes;
  PGLAYOUT_RETURN_IF_ERROR(
      BuildDistribution(workload, options, citus, &plan.distribution));
  const Distribution& d = plan.distribution;

  const int first = citus.workers > 0 ? citus.workers : 2;
  const int last = citus.workers > 0 ? citus.workers : citus.max_workers;
  NodeForecast worker;
  int n = first;
  for (; n <= last; ++n) {
    worker = ForecastNode("worker", WorkerWorkload(workload, d, n), workers,
                          options);
    if (worker.fits || n == last) break;
  }
  plan.workers = n;
  if (citus.workers > 0) {
    plan.workers_why = fmt::format("{} workers, as --hosts gives", n);
  } else if (worker.fits) {
    plan.workers_why = fmt::format(
        "the fewest workers whose share of the load (1/{} of each "
        "distributed table, every reference table whole) meets the {} "
        "target on {}",
        n, Pct(options.target_utilization), workers.description);
  } else {
    plan.workers_why = fmt::format(
        "no count of workers up to {} meets the {} target on {}: the load "
        "that every worker carries whatever their number (reference tables, "
        "their writes) or one shard's is too much; shown at {}",
        last, Pct(options.target_utilization), workers.description, n);
  }
  plan.shard_count =
      citus.shard_count > 0
          ? citus.shard_count
          : ShardCount(n, LargestDistributed(d), &plan.shard_count_why);
  if (citus.shard_count > 0) {
    plan.shard_count_why = "as --shard-count gives";
    if (citus.shard_count % n != 0) {
      plan.shard_count_why += fmt::format(
          " (not a multiple of the {} workers: some hold one shard more)", n);
    }
  }
  for (int i = 1; i <= n; ++i) {
    NodeForecast f = worker;
    f.name = fmt::format("worker{}", i);
    plan.worker_forecast.push_back(std::move(f));
  }
  const Workload local = CoordinatorWorkload(workload, d);
  if (local.relations.empty()) {
    plan.coordinator.name = "coordinator";
    plan.coordinator.fits = true;
    plan.coordinator.note =
        "holds no table data: the metadata, and planning and merging the "
        "distributed queries";
  } else {
    WorkerVolumes own = workers;
    // No coordinator volumes (no instance carried the workload): it is
    // sized like a worker, from the same catalog.
    if (coordinator != nullptr && !coordinator->volumes.empty()) {
      own.volumes = coordinator;
      own.catalog = nullptr;
    }
    plan.coordinator = ForecastNode("coordinator", local, own, options);
  }
  plan.coordinator.max_utilization_before =
      coordinator != nullptr ? HostToday(*coordinator, workload) : 0;

  int distributed = 0, reference = 0, local_tables = 0;
  for (const CitusTable& t : d.tables) {
    (t.role == CitusRole::kDistributed ? distributed
     : t.role == CitusRole::kReference ? reference
                                       : local_tables)++;
  }
  plan.verdicts.push_back(fmt::format(
      "citus: {} distributed table(s) in {} co-location group(s), {} "
      "reference, {} local; {} workers, {} shards per distributed table",
      distributed, d.groups.size(), reference, local_tables, n,
      plan.shard_count));
  plan.verdicts.push_back(fmt::format(
      "citus: each worker {} at the {} target: busiest volume at {} ({})",
      worker.fits ? "meets" : "does NOT meet", Pct(options.target_utilization),
      Pct(worker.max_utilization), worker.note));
  if (!plan.coordinator.fits) {
    plan.verdicts.push_back(fmt::format(
        "citus: the coordinator does NOT meet the target with the local "
        "tables: {}",
        plan.coordinator.note));
  }
  if (!d.dropped_keys.empty()) {
    plan.verdicts.push_back(fmt::format(
        "citus: {} foreign key(s) Citus would refuse; citus.sql names them "
        "(DROP CONSTRAINT commented out) and stops at the first table that "
        "still has one",
        d.dropped_keys.size()));
  }
  *out = std::move(plan);
  return Status::Ok();
}

}  // namespace pglayout::planner
