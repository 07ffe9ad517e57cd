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
    Get(*it, "verdicts", &plan->verdicts);
  }
  if (auto it = root.find("wal"); it != root.end()) {
    Get(*it, "volume", &plan->wal_volume);
    Get(*it, "reason", &plan->wal_reason);
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

bool EndsWith(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Status ParsePlanJson(std::string_view text, const std::string& source_name,
                     Plan* out) {
  Plan plan;
  try {
    json root = json::parse(text);
    if (!root.is_object()) {
      return Status::InvalidInput(source_name +
                                  ": a plan in JSON is an object at the top");
    }
    ReadHeader(root, &plan);
    ReadLists(root, &plan);
  } catch (const json::parse_error& e) {
    return Status::InvalidInput(fmt::format("{}: not JSON (byte {}): {}",
                                            source_name, e.byte, e.what()));
  } catch (const std::exception& e) {
    return Status::InvalidInput(fmt::format("{}: {}", source_name, e.what()));
  }
  *out = std::move(plan);
  return Status::Ok();
}

Status ReadPlanAnyFormat(const std::string& path, Plan* out) {
  if (!EndsWith(path, ".json")) return ReadPlanFile(path, out);
  std::string text;
  PGLAYOUT_RETURN_IF_ERROR(ReadTextFile(path, &text));
  return ParsePlanJson(text, path, out);
}

}  // namespace pglayout::report
