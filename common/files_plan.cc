// plan.toml: what `pglayout migrate` executes. Written by `pglayout plan` or
// by a person; validated here so that migrate never starts on a plan that
// names a tablespace it does not define.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "common/files.h"
#include "common/plan_setting_names.h"
#include "common/quote.h"
#include "common/toml_reader.h"
#include "common/toml_writer.h"

namespace pglayout {
namespace {

using internal::KeyReader;
using internal::TomlWriter;

constexpr Strategy kAllStrategies[] = {Strategy::kStay, Strategy::kMove,
                                       Strategy::kHashPartition};

Status ReadPlanHeader(const toml::table& table, const std::string& file,
                      Plan* plan) {
  KeyReader k(table, file, "[plan]");
  k.Number("target_utilization", &plan->target_utilization, 0.01);
  if (!k.failed() && plan->target_utilization > 1) {
    k.Fail("target_utilization", "must be a fraction between 0.01 and 1");
  }
  k.String("prefer", &plan->prefer);
  if (!k.failed() && plan->prefer != "auto" && plan->prefer != "partition" &&
      plan->prefer != "stripe") {
    k.Fail("prefer", "must be one of auto, partition, stripe");
  }
  k.StringList("warnings", &plan->warnings);
  k.StringList("verdicts", &plan->verdicts);
  return k.Finish();
}

Status ReadWalSection(const toml::table& table, const std::string& file,
                      Plan* plan) {
  KeyReader k(table, file, "[wal]");
  k.String("volume", &plan->wal_volume);
  k.String("reason", &plan->wal_reason);
  k.String("now", &plan->wal_now);
  k.String("now_note", &plan->wal_now_note);
  std::string move_to;
  k.String("move_to_path", &move_to);
  if (!move_to.empty()) {
    WalMove move;
    move.to_path = move_to;
    k.String("move_from_volume", &move.from_volume);
    k.String("move_from_path", &move.from_path);
    k.String("data_directory", &move.data_directory);
    k.Number("move_from_utilization_until_moved",
             &move.from_utilization_until_moved);
    plan->wal_move = std::move(move);
  }
  return k.Finish();
}

Status ReadTablespace(const toml::table& table, const std::string& file,
                      TablespaceSpec* ts) {
  std::optional<std::string> name = table["name"].value<std::string>();
  KeyReader k(table, file,
              fmt::format("[[tablespace]] '{}'", name.value_or("")));
  k.String("name", &ts->name, KeyReader::kRequired);
  if (!k.failed() && ts->name.empty()) k.Fail("name", "must not be empty");
  if (!k.failed() && ts->name.starts_with("pg_")) {
    k.Fail("name", "names starting with pg_ are reserved by PostgreSQL");
  }
  k.String("path", &ts->path, KeyReader::kRequired);
  if (!k.failed() && !ts->path.starts_with("/")) {
    k.Fail("path", "must be an absolute directory path");
  }
  k.String("volume", &ts->volume);
  k.StringMap("options", &ts->options);
  return k.Finish();
}

void ReadStrategy(KeyReader* k, Strategy* strategy) {
  std::string text = StrategyName(*strategy);
  k->String("strategy", &text, KeyReader::kRequired);
  for (Strategy candidate : kAllStrategies) {
    if (text == StrategyName(candidate)) {
      *strategy = candidate;
      return;
    }
  }
  k->Fail("strategy",
          fmt::format("'{}' is not one of stay, move, hash_partition", text));
}

// The shape each strategy needs; the tablespaces are checked by the caller.
void CheckPlacementShape(KeyReader* k, Placement* p) {
  if (k->failed()) return;
  if (p->strategy == Strategy::kMove && p->tablespaces.size() != 1) {
    k->Fail("tablespaces", "a move names exactly one tablespace");
  } else if (p->strategy == Strategy::kHashPartition) {
    if (p->tablespaces.empty()) {
      k->Fail("tablespaces", "hash_partition needs at least one tablespace");
    } else if (p->key.empty()) {
      k->Fail("key", "hash_partition needs the partition key columns");
    } else if (p->partitions == 0) {
      p->partitions = static_cast<int>(p->tablespaces.size());
    }
    if (!k->failed() && p->partitions < 2) {
      k->Fail("partitions", "hash partitioning needs at least 2 partitions");
    }
  }
}

Status ReadPlacement(const toml::table& table, const std::string& file,
                     Placement* p) {
  std::optional<std::string> name = table["relation"].value<std::string>();
  KeyReader k(table, file,
              fmt::format("[[placement]] '{}'", name.value_or("")));
  k.String("relation", &p->relation, KeyReader::kRequired);
  std::string schema, relname;
  if (!k.failed()) {
    Status st = SplitQualifiedName(p->relation, &schema, &relname);
    if (!st.ok()) k.Fail("relation", st.message());
  }
  ReadStrategy(&k, &p->strategy);
  k.StringList("tablespaces", &p->tablespaces);
  k.Int("partitions", &p->partitions, 0, 1024);
  k.StringList("key", &p->key);
  k.Bool("online", &p->online);
  k.String("reason", &p->reason);
  CheckPlacementShape(&k, p);
  return k.Finish();
}

Status ReadStripe(const toml::table& table, const std::string& file,
                  Stripe* s) {
  KeyReader k(table, file, "[[stripe]]");
  k.String("name", &s->name, KeyReader::kRequired);
  k.StringList("members", &s->members);
  k.Size("chunk", &s->chunk);
  k.String("tool", &s->tool);
  k.String("reason", &s->reason);
  if (!k.failed() && s->tool != "mdadm" && s->tool != "lvm") {
    k.Fail("tool", "must be mdadm or lvm");
  }
  return k.Finish();
}

Status ReadForecast(const toml::table& table, const std::string& file,
                    ForecastEntry* f) {
  KeyReader k(table, file, "[[forecast]]");
  k.String("volume", &f->volume, KeyReader::kRequired);
  k.Number("utilization_before", &f->utilization_before);
  k.Number("utilization_after", &f->utilization_after);
  k.Number("read_latency_us_before", &f->read_latency_us_before);
  k.Number("read_latency_us_after", &f->read_latency_us_after);
  k.Number("read_iops", &f->read_iops);
  k.Number("write_iops", &f->write_iops);
  k.Number("checkpoint_write_iops", &f->checkpoint_write_iops);
  k.Number("wal_write_iops", &f->wal_write_iops);
  k.Number("wal_write_mbps", &f->wal_write_mbps);
  k.Number("backup_read_mbps", &f->backup_read_mbps);
  return k.Finish();
}

Status ReadBackup(const toml::table& table, const std::string& file,
                  Plan* plan) {
  KeyReader k(table, file, "[backup]");
  k.StringMap("wal-g", &plan->backup_walg);
  k.StringMap("pgbackrest", &plan->backup_pgbackrest);
  return k.Finish();
}

// migrate applies [settings] with ALTER SYSTEM as a superuser: only the
// names the planner writes, so an edited plan cannot set archive_command.
Status CheckPlanSetting(const toml::table& root, const std::string& file,
                        const std::string& name) {
  if (IsPlanSetting(name)) return Status::Ok();
  const toml::table* settings = root.get_as<toml::table>("settings");
  const toml::node* where = settings ? settings->get(name) : nullptr;
  return Status::InvalidInput(fmt::format(
      "{}: setting '{}' in [settings] is not one pglayout plans: a plan "
      "changes only {}; set anything else by hand",
      internal::Position(file, where ? where->source() : root.source()), name,
      fmt::join(PlanSettingNames(), ", ")));
}

// Settings: [settings] name = value, with optional [settings_reason] and
// [settings_previous] keyed by the same names.
Status ReadSettings(KeyReader* k, const toml::table& root,
                    const std::string& file, Plan* plan) {
  std::map<std::string, std::string> values, reasons, previous;
  k->StringMap("settings", &values);
  k->StringMap("settings_reason", &reasons);
  k->StringMap("settings_previous", &previous);
  if (k->failed()) return Status::Ok();  // reported by Finish()
  for (const auto* extra : {&reasons, &previous}) {
    for (const auto& [name, text] : *extra) {
      if (values.count(name)) continue;
      const toml::node* where =
          root.at_path((extra == &reasons ? "settings_reason."
                                          : "settings_previous.") +
                       name)
              .node();
      return Status::InvalidInput(fmt::format(
          "{}: '{}' has no value in [settings]",
          internal::Position(file, where ? where->source() : root.source()),
          name));
    }
  }
  for (const auto& [name, value] : values) {
    PGLAYOUT_RETURN_IF_ERROR(CheckPlanSetting(root, file, name));
    plan->settings.push_back({name, value, previous[name], reasons[name]});
  }
  return Status::Ok();
}

template <typename T, typename ReadOne>
Status ReadAll(const std::vector<const toml::table*>& tables,
               const std::string& file, std::vector<T>* out, ReadOne read_one) {
  for (const toml::table* t : tables) {
    out->emplace_back();
    PGLAYOUT_RETURN_IF_ERROR(read_one(*t, file, &out->back()));
  }
  return Status::Ok();
}

// Every tablespace a placement names is defined in the plan (or is
// pg_default), names are unique, and each relation is placed once.
Status CheckReferences(const std::vector<const toml::table*>& ts_tables,
                       const std::vector<const toml::table*>& pl_tables,
                       const std::string& file, const Plan& plan) {
  std::set<std::string> names = {"pg_default"};
  for (size_t i = 0; i < plan.tablespaces.size(); ++i) {
    if (names.insert(plan.tablespaces[i].name).second) continue;
    return Status::InvalidInput(fmt::format(
        "{}: [[tablespace]] key 'name': duplicate tablespace '{}'",
        internal::Position(file, ts_tables[i]->get("name")->source()),
        plan.tablespaces[i].name));
  }
  std::set<std::string> placed;
  for (size_t i = 0; i < plan.placements.size(); ++i) {
    const Placement& p = plan.placements[i];
    const toml::table& t = *pl_tables[i];
    if (!placed.insert(p.relation).second) {
      return Status::InvalidInput(fmt::format(
          "{}: [[placement]] key 'relation': '{}' is placed twice",
          internal::Position(file, t.get("relation")->source()), p.relation));
    }
    for (const std::string& ts : p.tablespaces) {
      if (names.count(ts)) continue;
      return Status::InvalidInput(fmt::format(
          "{}: [[placement]] '{}' key 'tablespaces': tablespace '{}' is not "
          "defined in a [[tablespace]] table",
          internal::Position(file, t.get("tablespaces")->source()), p.relation,
          ts));
    }
  }
  return Status::Ok();
}

void WriteSettings(const Plan& plan, TomlWriter* w) {
  std::map<std::string, std::string> values, reasons, previous;
  for (const SettingChange& s : plan.settings) {
    values[s.name] = s.value;
    if (!s.reason.empty()) reasons[s.name] = s.reason;
    if (!s.previous.empty()) previous[s.name] = s.previous;
  }
  w->Table("settings");
  w->StringMapEntries(values);
  if (!reasons.empty()) {
    w->Table("settings_reason");
    w->StringMapEntries(reasons);
  }
  if (!previous.empty()) {
    w->Table("settings_previous");
    w->StringMapEntries(previous);
  }
}

void WritePlacement(const Placement& p, TomlWriter* w) {
  w->ArrayTable("placement");
  w->String("relation", p.relation);
  w->String("strategy", StrategyName(p.strategy));
  w->StringList("tablespaces", p.tablespaces);
  if (p.strategy == Strategy::kHashPartition) {
    w->Integer("partitions", p.partitions);
    w->StringList("key", p.key);
  }
  if (!p.online) w->Bool("online", false);
  w->StringIfSet("reason", p.reason);
}

// A step for a person: migrate ignores it (moving pg_wal needs the server
// stopped).
void WriteWalMove(const WalMove& m, TomlWriter* w) {
  w->Comment(
      "pg_wal moves by hand, with the server stopped: see the plan's text");
  w->String("move_to_path", m.to_path);
  w->StringIfSet("move_from_volume", m.from_volume);
  w->StringIfSet("move_from_path", m.from_path);
  w->StringIfSet("data_directory", m.data_directory);
  w->Number("move_from_utilization_until_moved",
            m.from_utilization_until_moved);
}

void WriteExtras(const Plan& plan, TomlWriter* w) {
  for (const Stripe& s : plan.stripes) {
    w->ArrayTable("stripe");
    w->String("name", s.name);
    w->StringList("members", s.members);
    w->SizeIfSet("chunk", s.chunk);
    w->String("tool", s.tool);
    w->StringIfSet("reason", s.reason);
  }
  for (const ForecastEntry& f : plan.forecast) {
    w->ArrayTable("forecast");
    w->String("volume", f.volume);
    w->Number("utilization_before", f.utilization_before);
    w->Number("utilization_after", f.utilization_after);
    w->Number("read_latency_us_before", f.read_latency_us_before);
    w->Number("read_latency_us_after", f.read_latency_us_after);
    w->NumberIfSet("read_iops", f.read_iops);
    w->NumberIfSet("write_iops", f.write_iops);
    w->NumberIfSet("checkpoint_write_iops", f.checkpoint_write_iops);
    w->NumberIfSet("wal_write_iops", f.wal_write_iops);
    w->NumberIfSet("wal_write_mbps", f.wal_write_mbps);
    w->NumberIfSet("backup_read_mbps", f.backup_read_mbps);
  }
  if (!plan.backup_walg.empty()) {
    w->Table("backup.wal-g");
    w->StringMapEntries(plan.backup_walg);
  }
  if (!plan.backup_pgbackrest.empty()) {
    w->Table("backup.pgbackrest");
    w->StringMapEntries(plan.backup_pgbackrest);
  }
}

}  // namespace

Status ParsePlan(std::string_view text, const std::string& source_name,
                 Plan* out) {
  toml::table root;
  PGLAYOUT_RETURN_IF_ERROR(internal::ParseToml(text, source_name, &root));
  return internal::PlanFromToml(root, source_name, out);
}

namespace internal {

Status PlanFromToml(const toml::table& root, const std::string& source_name,
                    Plan* out) {
  Plan plan;
  KeyReader k(root, source_name, "the plan file");
  const toml::table* header = k.Table("plan");
  const toml::table* wal = k.Table("wal");
  const toml::table* backup = k.Table("backup");
  auto ts_tables = k.Tables("tablespace");
  auto pl_tables = k.Tables("placement");
  auto stripe_tables = k.Tables("stripe");
  auto forecast_tables = k.Tables("forecast");
  k.Table("citus");  // the Citus distribution: for people, citus.sql runs it
  PGLAYOUT_RETURN_IF_ERROR(ReadSettings(&k, root, source_name, &plan));
  PGLAYOUT_RETURN_IF_ERROR(k.Finish());
  if (header)
    PGLAYOUT_RETURN_IF_ERROR(ReadPlanHeader(*header, source_name, &plan));
  if (wal) PGLAYOUT_RETURN_IF_ERROR(ReadWalSection(*wal, source_name, &plan));
  if (backup) PGLAYOUT_RETURN_IF_ERROR(ReadBackup(*backup, source_name, &plan));
  PGLAYOUT_RETURN_IF_ERROR(
      ReadAll(ts_tables, source_name, &plan.tablespaces, ReadTablespace));
  PGLAYOUT_RETURN_IF_ERROR(
      ReadAll(pl_tables, source_name, &plan.placements, ReadPlacement));
  PGLAYOUT_RETURN_IF_ERROR(
      ReadAll(stripe_tables, source_name, &plan.stripes, ReadStripe));
  PGLAYOUT_RETURN_IF_ERROR(
      ReadAll(forecast_tables, source_name, &plan.forecast, ReadForecast));
  PGLAYOUT_RETURN_IF_ERROR(
      CheckReferences(ts_tables, pl_tables, source_name, plan));
  *out = std::move(plan);
  return Status::Ok();
}

}  // namespace internal

std::string PlanToToml(const Plan& plan) {
  TomlWriter w;
  w.Comment(
      "pglayout plan: `pglayout migrate` executes it (a dry run unless\n"
      "--apply). Edit freely; `pglayout check` validates the result.");
  w.Table("plan");
  w.Number("target_utilization", plan.target_utilization);
  w.String("prefer", plan.prefer);
  w.StringListIfSet("warnings", plan.warnings);
  w.StringListIfSet("verdicts", plan.verdicts);
  w.Table("wal");
  w.StringIfSet("volume", plan.wal_volume);
  w.StringIfSet("reason", plan.wal_reason);
  w.StringIfSet("now", plan.wal_now);
  w.StringIfSet("now_note", plan.wal_now_note);
  if (plan.wal_move) WriteWalMove(*plan.wal_move, &w);
  for (const TablespaceSpec& ts : plan.tablespaces) {
    w.ArrayTable("tablespace");
    w.String("name", ts.name);
    w.String("path", ts.path);
    w.StringIfSet("volume", ts.volume);
    if (!ts.options.empty()) {
      w.Table("tablespace.options");
      w.StringMapEntries(ts.options);
    }
  }
  for (const Placement& p : plan.placements) WritePlacement(p, &w);
  WriteSettings(plan, &w);
  WriteExtras(plan, &w);
  return w.str();
}

}  // namespace pglayout
