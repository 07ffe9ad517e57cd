// The one place the report converts nlohmann::json exceptions into Status.

#include "report/inputs.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "common/files.h"

namespace pglayout::report {
namespace {

using nlohmann::json;

// Copies j[key] into *out when present; a wrong type throws type_error,
// which ParsePlanJson turns into InvalidInput naming |where| and the key.
template <typename T>
void Get(const json& j, const char* key, T* out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return;
  try {
    it->get_to(*out);
  } catch (const json::type_error& e) {
    throw std::invalid_argument(fmt::format("key '{}': {}", key, e.what()));
  }
}

Strategy StrategyFromName(const std::string& name, const std::string& where) {
  for (Strategy s :
       {Strategy::kStay, Strategy::kMove, Strategy::kHashPartition}) {
    if (name == StrategyName(s)) return s;
  }
  throw std::invalid_argument(
      fmt::format("{}: strategy '{}' is not one of stay, move, hash_partition",
                  where, name));
}

void ReadHeader(const json& root, Plan* plan) {
  if (auto it = root.find("plan"); it != root.end()) {
    Get(*it, "target_utilization", &plan->target_utilization);
    Get(*it, "prefer", &plan->prefer);
    Get(*it, "warnings", &plan->warnings);
    Get(*it, "verdicts", &plan->verdicts);
  }
  if (auto it = root.find("wal"); it != root.end()) {
    Get(*it, "volume", &plan->wal_volume);
    Get(*it, "reason", &plan->wal_reason);
    Get(*it, "now", &plan->wal_now);
    Get(*it, "now_note", &plan->wal_now_note);
    if (auto move = it->find("move"); move != it->end() && move->is_object()) {
      WalMove m;
      Get(*move, "from_volume", &m.from_volume);
      Get(*move, "from_path", &m.from_path);
      Get(*move, "to_path", &m.to_path);
      Get(*move, "data_directory", &m.data_directory);
      Get(*move, "from_utilization_until_moved",
          &m.from_utilization_until_moved);
      plan->wal_move = std::move(m);
    }
  }
  if (auto it = root.find("backup"); it != root.end()) {
    Get(*it, "wal-g", &plan->backup_walg);
    Get(*it, "pgbackrest", &plan->backup_pgbackrest);
  }
}

void ReadPlacement(const json& j, Placement* p) {
  Get(j, "relation", &p->relation);
  std::string strategy = StrategyName(p->strategy);
  Get(j, "strategy", &strategy);
  p->strategy = StrategyFromName(strategy, "placement '" + p->relation + "'");
  Get(j, "tablespaces", &p->tablespaces);
  Get(j, "partitions", &p->partitions);
  Get(j, "key", &p->key);
  Get(j, "online", &p->online);
  Get(j, "reason", &p->reason);
}

void ReadLists(const json& root, Plan* plan) {
  for (const json& j : root.value("tablespaces", json::array())) {
    TablespaceSpec& t = plan->tablespaces.emplace_back();
    Get(j, "name", &t.name);
    Get(j, "path", &t.path);
    Get(j, "volume", &t.volume);
    Get(j, "options", &t.options);
  }
  for (const json& j : root.value("placements", json::array())) {
    ReadPlacement(j, &plan->placements.emplace_back());
  }
  for (const json& j : root.value("settings", json::array())) {
    SettingChange& s = plan->settings.emplace_back();
    Get(j, "name", &s.name);
    Get(j, "value", &s.value);
    Get(j, "previous", &s.previous);
    Get(j, "reason", &s.reason);
  }
  for (const json& j : root.value("stripes", json::array())) {
    Stripe& s = plan->stripes.emplace_back();
    Get(j, "name", &s.name);
    Get(j, "members", &s.members);
    Get(j, "chunk", &s.chunk);
    Get(j, "tool", &s.tool);
    Get(j, "reason", &s.reason);
  }
  for (const json& j : root.value("forecast", json::array())) {
    ForecastEntry& f = plan->forecast.emplace_back();
    Get(j, "volume", &f.volume);
    Get(j, "utilization_before", &f.utilization_before);
    Get(j, "utilization_after", &f.utilization_after);
    Get(j, "read_latency_us_before", &f.read_latency_us_before);
    Get(j, "read_latency_us_after", &f.read_latency_us_after);
  }
}

RemedyView ReadRemedy(const json& j) {
  RemedyView r;
  Get(j, "summary", &r.summary);
  Get(j, "possible", &r.possible);
  Get(j, "blocker", &r.blocker);
  Get(j, "members", &r.members);
  Get(j, "worst_utilization", &r.worst_utilization);
  Get(j, "mean_read_latency_us", &r.mean_read_latency_us);
  Get(j, "meets_target", &r.meets_target);
  return r;
}

void ReadRemedies(const json& root, PlanDetails* details) {
  auto analysis = root.find("analysis");
  if (analysis == root.end() || !analysis->is_object()) return;
  auto it = analysis->find("remedies");
  if (it == analysis->end() || !it->is_object()) return;
  RemedyComparisonView& v = details->remedies.emplace();
  v.partition = ReadRemedy(it->value("hash_partition", json::object()));
  v.stripe = ReadRemedy(it->value("stripe", json::object()));
  Get(*it, "chosen", &v.chosen);
  Get(*it, "reason", &v.reason);
}

CitusNodeView ReadNode(const json& j) {
  CitusNodeView n;
  Get(j, "name", &n.name);
  Get(j, "bytes", &n.bytes);
  Get(j, "read_iops", &n.read_iops);
  Get(j, "write_iops", &n.write_iops);
  Get(j, "max_utilization", &n.max_utilization);
  Get(j, "max_utilization_before", &n.max_utilization_before);
  Get(j, "fits", &n.fits);
  Get(j, "note", &n.note);
  return n;
}

void ReadCitusLists(const json& c, CitusView* v) {
  for (const json& j : c.value("groups", json::array())) {
    CitusGroupView& g = v->groups.emplace_back();
    Get(j, "anchor", &g.anchor);
    Get(j, "columns", &g.columns);
    Get(j, "tables", &g.tables);
    Get(j, "bytes_needed", &g.bytes_needed);
    for (const json& e : j.value("edges", json::array())) {
      CitusGroupView::Edge& edge = g.edges.emplace_back();
      Get(e, "from", &edge.from);
      Get(e, "to", &edge.to);
      Get(e, "constraint", &edge.constraint);
    }
  }
  for (const json& j : c.value("tables", json::array())) {
    CitusTableView& t = v->tables.emplace_back();
    Get(j, "name", &t.name);
    Get(j, "role", &t.role);
    Get(j, "column", &t.column);
    Get(j, "group", &t.group);
    Get(j, "colocate_with", &t.colocate_with);
    Get(j, "bytes", &t.bytes);
    Get(j, "why", &t.why);
    Get(j, "cautions", &t.cautions);
    Get(j, "references", &t.references);
  }
  for (const json& j : c.value("dropped_foreign_keys", json::array())) {
    CitusView::DroppedKey& k = v->dropped_keys.emplace_back();
    Get(j, "table", &k.table);
    Get(j, "constraint", &k.constraint);
    Get(j, "why", &k.why);
  }
  for (const json& j : c.value("worker_forecast", json::array())) {
    v->workers_forecast.push_back(ReadNode(j));
  }
}

void ReadCitus(const json& root, PlanDetails* details) {
  auto it = root.find("citus");
  if (it == root.end() || !it->is_object()) return;
  CitusView& v = details->citus.emplace();
  Get(*it, "reason", &v.reason);
  Get(*it, "workers", &v.workers);
  Get(*it, "workers_reason", &v.workers_reason);
  Get(*it, "shard_count", &v.shard_count);
  Get(*it, "shard_count_reason", &v.shard_count_reason);
  Get(*it, "worker_volumes", &v.worker_volumes);
  Get(*it, "not_following", &v.not_following);
  Get(*it, "verdicts", &v.verdicts);
  ReadCitusLists(*it, &v);
  v.coordinator = ReadNode(it->value("coordinator", json::object()));
}

bool EndsWith(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Status ParsePlanJson(std::string_view text, const std::string& source_name,
                     Plan* out, PlanDetails* details) {
  Plan plan;
  PlanDetails more;
  try {
    json root = json::parse(text);
    if (!root.is_object()) {
      return Status::InvalidInput(source_name +
                                  ": a plan in JSON is an object at the top");
    }
    ReadHeader(root, &plan);
    ReadLists(root, &plan);
    ReadRemedies(root, &more);
    ReadCitus(root, &more);
  } catch (const json::parse_error& e) {
    return Status::InvalidInput(fmt::format("{}: not JSON (byte {}): {}",
                                            source_name, e.byte, e.what()));
  } catch (const std::exception& e) {
    return Status::InvalidInput(fmt::format("{}: {}", source_name, e.what()));
  }
  *out = std::move(plan);
  if (details) *details = std::move(more);
  return Status::Ok();
}

Status ReadPlanAnyFormat(const std::string& path, Plan* out,
                         PlanDetails* details) {
  if (!EndsWith(path, ".json")) {
    if (details) *details = PlanDetails{};
    return ReadPlanFile(path, out);
  }
  std::string text;
  PGLAYOUT_RETURN_IF_ERROR(ReadTextFile(path, &text));
  return ParsePlanJson(text, path, out, details);
}

const CitusTableView* CitusView::Find(const std::string& table) const {
  for (const CitusTableView& t : tables) {
    if (t.name == table) return &t;
  }
  return nullptr;
}

}  // namespace pglayout::report
