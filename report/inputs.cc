// The one place the report converts nlohmann::json exceptions into Status.

#include "report/inputs.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "common/files.h"
#include "common/input_limits.h"
#include "common/text.h"

namespace pglayout::report {
namespace {

using nlohmann::json;

// A path in a message is cut after this many bytes.
constexpr size_t kMaxKeyShownInPath = 200;

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

// A figure: a number in [0, kMaxFigure] (CheckValues bounded its size).
void Get(const json& j, const char* key, double* out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return;
  if (!it->is_number()) {
    throw std::invalid_argument(
        fmt::format("key '{}': expected a number, "
                    "got {}",
                    key, it->type_name()));
  }
  const double v = it->get<double>();
  if (std::string problem = FigureProblem(v, 0, kMaxFigure); !problem.empty()) {
    throw std::invalid_argument(fmt::format("key '{}': {}", key, problem));
  }
  *out = v;
}

// A count (partitions, workers, a group): a whole number in [0, 2^20].
void Get(const json& j, const char* key, int* out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return;
  constexpr int64_t kMost = int64_t{1} << 20;
  if (!it->is_number_integer() || it->get<int64_t>() < 0 ||
      it->get<int64_t>() > kMost) {
    throw std::invalid_argument(
        fmt::format("key '{}': expected a whole number from 0 to {}, got {}",
                    key, kMost, it->dump()));
  }
  *out = it->get<int>();
}

// A size in bytes: a whole number in [0, kMaxSize].
void Get(const json& j, const char* key, uint64_t* out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return;
  if (!it->is_number_integer() || it->get<int64_t>() < 0 ||
      it->get<uint64_t>() > kMaxSize) {
    throw std::invalid_argument(fmt::format(
        "key '{}': expected a whole number of bytes from 0 to 2^60, got {}",
        key, it->dump()));
  }
  *out = it->get<uint64_t>();
}

// Where |path| is in a message: "placements[2].reason" ("the top" for "").
std::string Shown(const std::string& path) {
  return path.empty() ? "the top" : DisplayName(path, kMaxKeyShownInPath);
}

// Every value of the document within the limits of any input file
// (common/input_limits.h), before a field is read: numbers of at most
// kMaxFigure either way and not subnormal, strings and keys of at most
// kMaxStringBytes. InvalidInput names |source_name| and the value's path.
Status CheckValues(const json& root, const std::string& source_name) {
  std::vector<std::pair<const json*, std::string>> todo = {{&root, ""}};
  while (!todo.empty()) {
    auto [j, path] = todo.back();
    todo.pop_back();
    std::string problem;
    if (j->is_number_float()) {
      problem = FigureProblem(std::abs(j->get<double>()), 0, kMaxFigure);
    } else if (j->is_number_unsigned() ? j->get<uint64_t>() > kMaxSize
               : j->is_number_integer()
                   ? j->get<int64_t>() < -static_cast<int64_t>(kMaxSize)
                   : false) {
      problem = "must be at most 2^60 either way";
    } else if (j->is_string()) {
      problem = StringProblem(j->get_ref<const std::string&>().size());
    } else if (j->is_object()) {
      for (auto it = j->begin(); it != j->end(); ++it) {
        if (std::string p = StringProblem(it.key().size()); !p.empty()) {
          return Status::InvalidInput(
              fmt::format("{}: a key in {} {}", source_name, Shown(path), p));
        }
        todo.emplace_back(&it.value(),
                          path.empty() ? it.key() : path + "." + it.key());
      }
    } else if (j->is_array()) {
      for (size_t i = 0; i < j->size(); ++i) {
        todo.emplace_back(&(*j)[i], fmt::format("{}[{}]", path, i));
      }
    }
    if (!problem.empty()) {
      return Status::InvalidInput(
          fmt::format("{}: {}: {}", source_name, Shown(path), problem));
    }
  }
  return Status::Ok();
}

// The elements of the array j[key] (none when absent), each an object;
// anything else throws, naming the key.
std::vector<const json*> Elements(const json& j, const char* key) {
  std::vector<const json*> out;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return out;
  if (!it->is_array()) {
    throw std::invalid_argument(fmt::format(
        "key '{}': expected an array, got {}", key, it->type_name()));
  }
  for (const json& e : *it) {
    if (!e.is_object()) {
      throw std::invalid_argument(
          fmt::format("key '{}': expected an array of objects, got {} in it",
                      key, e.type_name()));
    }
    out.push_back(&e);
  }
  return out;
}

Strategy StrategyFromName(const std::string& name, const std::string& where) {
  for (Strategy s :
       {Strategy::kStay, Strategy::kMove, Strategy::kHashPartition}) {
    if (name == StrategyName(s)) return s;
  }
  throw std::invalid_argument(
      fmt::format("{}: strategy '{}' is not one of stay, move, hash_partition",
                  where, DisplayName(name, kMaxKeyShownInPath)));
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
  p->strategy = StrategyFromName(
      strategy,
      "placement '" + DisplayName(p->relation, kMaxKeyShownInPath) + "'");
  Get(j, "tablespaces", &p->tablespaces);
  Get(j, "partitions", &p->partitions);
  Get(j, "key", &p->key);
  Get(j, "online", &p->online);
  Get(j, "reason", &p->reason);
}

void ReadLists(const json& root, Plan* plan) {
  for (const json* j_ptr : Elements(root, "tablespaces")) {
    const json& j = *j_ptr;
    TablespaceSpec& t = plan->tablespaces.emplace_back();
    Get(j, "name", &t.name);
    Get(j, "path", &t.path);
    Get(j, "volume", &t.volume);
    Get(j, "options", &t.options);
  }
  for (const json* j_ptr : Elements(root, "placements")) {
    const json& j = *j_ptr;
    ReadPlacement(j, &plan->placements.emplace_back());
  }
  for (const json* j_ptr : Elements(root, "settings")) {
    const json& j = *j_ptr;
    SettingChange& s = plan->settings.emplace_back();
    Get(j, "name", &s.name);
    Get(j, "value", &s.value);
    Get(j, "previous", &s.previous);
    Get(j, "reason", &s.reason);
  }
  for (const json* j_ptr : Elements(root, "stripes")) {
    const json& j = *j_ptr;
    Stripe& s = plan->stripes.emplace_back();
    Get(j, "name", &s.name);
    Get(j, "members", &s.members);
    Get(j, "chunk", &s.chunk);
    Get(j, "tool", &s.tool);
    Get(j, "reason", &s.reason);
  }
  for (const json* j_ptr : Elements(root, "forecast")) {
    const json& j = *j_ptr;
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

// The plan's "analysis" object, or null (a plan without one).
const json* Analysis(const json& root) {
  auto analysis = root.find("analysis");
  if (analysis == root.end() || !analysis->is_object()) return nullptr;
  return &*analysis;
}

void ReadRemedies(const json& root, PlanDetails* details) {
  const json* analysis = Analysis(root);
  if (analysis == nullptr) return;
  auto it = analysis->find("remedies");
  if (it == analysis->end() || !it->is_object()) return;
  RemedyComparisonView& v = details->remedies.emplace();
  v.partition = ReadRemedy(it->value("hash_partition", json::object()));
  v.stripe = ReadRemedy(it->value("stripe", json::object()));
  Get(*it, "chosen", &v.chosen);
  Get(*it, "reason", &v.reason);
}

void ReadHot(const json& root, PlanDetails* details) {
  const json* analysis = Analysis(root);
  if (analysis == nullptr) return;
  for (const json* j_ptr : Elements(*analysis, "hot")) {
    const json& j = *j_ptr;
    HotTableView& h = details->hot.emplace_back();
    Get(j, "table", &h.table);
    Get(j, "chosen", &h.chosen);
    Get(j, "partitions", &h.partitions);
    Get(j, "bound", &h.bound);
    Get(j, "room_to_grow", &h.room_to_grow);
    for (const json* c_ptr : Elements(j, "counts")) {
      HotTableView::Count& c = h.counts.emplace_back();
      Get(*c_ptr, "partitions", &c.partitions);
      Get(*c_ptr, "worst_utilization", &c.worst_utilization);
    }
  }
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
  for (const json* j_ptr : Elements(c, "groups")) {
    const json& j = *j_ptr;
    CitusGroupView& g = v->groups.emplace_back();
    Get(j, "anchor", &g.anchor);
    Get(j, "columns", &g.columns);
    Get(j, "tables", &g.tables);
    Get(j, "bytes_needed", &g.bytes_needed);
    for (const json* e_ptr : Elements(j, "edges")) {
      const json& e = *e_ptr;
      CitusGroupView::Edge& edge = g.edges.emplace_back();
      Get(e, "from", &edge.from);
      Get(e, "to", &edge.to);
      Get(e, "constraint", &edge.constraint);
    }
  }
  for (const json* j_ptr : Elements(c, "tables")) {
    const json& j = *j_ptr;
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
  for (const json* j_ptr : Elements(c, "dropped_foreign_keys")) {
    const json& j = *j_ptr;
    CitusView::DroppedKey& k = v->dropped_keys.emplace_back();
    Get(j, "table", &k.table);
    Get(j, "constraint", &k.constraint);
    Get(j, "why", &k.why);
  }
  for (const json* j_ptr : Elements(c, "worker_forecast")) {
    const json& j = *j_ptr;
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
  if (text.size() > kMaxInputFileBytes) {
    return Status::InvalidInput(
        fmt::format("{}: {} bytes, more than the {} MiB an input file may have",
                    source_name, text.size(), kMaxInputFileBytes >> 20));
  }
  try {
    // Nesting is refused as the parser meets it, before a deep document
    // is built (and torn down) at all.
    const json::parser_callback_t depth = [&](int level, json::parse_event_t,
                                              json&) {
      if (level > kMaxNesting) {
        throw std::invalid_argument(fmt::format(
            "arrays and objects nest deeper than {} levels", kMaxNesting));
      }
      return true;
    };
    json root = json::parse(text, depth);
    if (!root.is_object()) {
      return Status::InvalidInput(source_name +
                                  ": a plan in JSON is an object at the top");
    }
    PGLAYOUT_RETURN_IF_ERROR(CheckValues(root, source_name));
    ReadHeader(root, &plan);
    ReadLists(root, &plan);
    ReadRemedies(root, &more);
    ReadCitus(root, &more);
    ReadHot(root, &more);
  } catch (const json::parse_error& e) {
    return Status::InvalidInput(fmt::format("{}: not JSON (byte {}): {}",
                                            source_name, e.byte, e.what()));
  } catch (const json::out_of_range& e) {
    // A number beyond a double's range ("1e400").
    return Status::InvalidInput(
        fmt::format("{}: a number is out of range: {}", source_name,
                    DisplayName(e.what(), kMaxKeyShownInPath)));
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
  PGLAYOUT_RETURN_IF_ERROR(ReadInputFile(path, &text));
  return ParsePlanJson(text, path, out, details);
}

const CitusTableView* CitusView::Find(const std::string& table) const {
  for (const CitusTableView& t : tables) {
    if (t.name == table) return &t;
  }
  return nullptr;
}

}  // namespace pglayout::report
