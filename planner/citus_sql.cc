// The Citus plan's outputs: citus.sql, the [citus] section of plan.toml,
// "citus" in plan.json and the plan's text (citus_plan.h).

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/quote.h"
#include "common/toml_writer.h"
#include "common/units.h"
#include "planner/citus_plan.h"
#include "planner/file_text.h"

namespace pglayout::planner {
namespace {

std::string Pct(double f) { return fmt::format("{:.0f}%", f * 100); }

// '"public"."My Table"': a regclass argument, quoted so any name reads back.
std::string RegclassLiteral(const std::string& table) {
  return QuoteLiteral(QuoteQualified(table));
}

// Each line of |text| as a block comment of its own, which no value can
// end and which stays a comment when "-- " is taken off every line
// (planner/file_text.h).
std::string Comment(const std::string& text) {
  std::string out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += SqlNote(text.substr(start, end - start)) + "\n";
    start = end + 1;
  }
  return out;
}

void SqlHeader(const CitusPlan& plan, std::string* sql) {
  *sql += Comment(fmt::format(
      "pglayout: a Citus distribution plan (docs/citus.md). Review it, then "
      "run it on the\ncoordinator: psql -v ON_ERROR_STOP=1 -f citus.sql\n"
      "Why: {}\n{} workers, {} shards per distributed table ({}).",
      plan.reason, plan.workers, plan.shard_count, plan.shard_count_why));
  *sql += "\n";
  *sql += Comment(
      "1. The extension. Every node (coordinator and workers) needs\n"
      "   shared_preload_libraries = 'citus' and a restart first; create it "
      "in this\n   database on every worker too.");
  *sql += Comment(
      "The literals below mean what they say whatever the database's "
      "default.");
  *sql += "SET standard_conforming_strings = on;\n";
  *sql += "CREATE EXTENSION IF NOT EXISTS citus;\n\n";
  *sql += Comment(
      "2. The workers: replace each placeholder host (.invalid never "
      "resolves) and port.\n   citus_add_node records the node in the "
      "metadata and copies the metadata to it;\n   it copies no table data "
      "and takes no lock on the tables.");
  for (const NodeForecast& w : plan.worker_forecast) {
    *sql += fmt::format("SELECT citus_add_node({}, 5432);\n",
                        QuoteLiteral(w.name + ".invalid"));
  }
  *sql += "\n";
}

void SqlDroppedKeys(const CitusPlan& plan, std::string* sql) {
  const auto& keys = plan.distribution.dropped_keys;
  if (keys.empty()) return;
  *sql += Comment(
      "3. Foreign keys Citus refuses. create_distributed_table and "
      "create_reference_table\n   fail on a table that still has one; "
      "decide for each, then uncomment its line.");
  for (const auto& k : keys) {
    *sql += Comment(fmt::format("{} ({}): {}", k.table, k.constraint, k.why));
    // One line, whatever the names hold: a line break in a quoted name
    // would end the comment and leave the rest of the name bare.
    *sql += "-- " +
            Visible(fmt::format("ALTER TABLE {} DROP CONSTRAINT {};",
                                QuoteQualified(k.table),
                                QuoteIdent(k.constraint))) +
            "\n";
  }
  *sql += "\n";
}

void SqlTables(const CitusPlan& plan, std::string* sql) {
  const Distribution& d = plan.distribution;
  bool reference_header = false, distributed_header = false;
  int last_group = -1;
  for (const CitusTable& t : d.tables) {
    if (t.role == CitusRole::kReference) {
      if (!reference_header) {
        *sql += Comment(
            "4. Reference tables, referenced ones first. Each is copied "
            "whole to every\n   worker; writes to it wait (reads go on) "
            "until the copy ends.");
        reference_header = true;
      }
      *sql += Comment(
          fmt::format("{}: {}, {}", t.table, HumanSize(t.bytes), t.why));
      for (const std::string& c : t.cautions) *sql += Comment("caution: " + c);
      *sql += fmt::format("SELECT create_reference_table({});\n",
                          RegclassLiteral(t.table));
    } else if (t.role == CitusRole::kDistributed) {
      if (!distributed_header) {
        *sql += (reference_header ? "\n" : "") +
                Comment(
                    "5. Distributed tables, parents before children, each "
                    "group's anchor first.\n   Each call blocks writes to "
                    "its table (reads go on) while its rows are copied\n   "
                    "into the shards on the workers; "
                    "create_distributed_table_concurrently does it\n   "
                    "without blocking writes (needs a replica identity; not "
                    "in a transaction).");
        distributed_header = true;
      }
      if (t.group != last_group) {
        const ColocationGroup& g = d.groups[t.group];
        *sql +=
            Comment(fmt::format("co-location group {} ({}): {}", t.group + 1,
                                g.column_note, fmt::join(g.tables, ", ")));
        for (const std::string& e : g.evidence) *sql += Comment("  by " + e);
        last_group = t.group;
      }
      *sql += Comment(fmt::format("{} by {}: copies {} into {} shards; {}",
                                  t.table, DisplayIdent(t.column),
                                  HumanSize(t.bytes), plan.shard_count, t.why));
      for (const std::string& c : t.cautions) *sql += Comment("caution: " + c);
      if (t.colocate_with == "none") {
        *sql += fmt::format(
            "SELECT create_distributed_table({}, {}, colocate_with => "
            "'none', shard_count => {});\n",
            RegclassLiteral(t.table), QuoteLiteral(t.column), plan.shard_count);
      } else {
        // Citus refuses shard_count beside a table to co-locate with: the
        // group's shard count is the anchor's.
        *sql += fmt::format(
            "SELECT create_distributed_table({}, {}, colocate_with => {});\n",
            RegclassLiteral(t.table), QuoteLiteral(t.column),
            RegclassLiteral(t.colocate_with));
      }
    }
  }
  bool local_header = false;
  for (const CitusTable& t : d.tables) {
    if (t.role != CitusRole::kLocal) continue;
    if (!local_header) {
      *sql += "\n" + Comment("6. Local tables: they stay on the coordinator.");
      local_header = true;
    }
    *sql += Comment(fmt::format("{}: {}", t.table, t.why));
  }
  *sql +=
      "\n" + Comment(
                 "Later, after adding workers: SELECT citus_rebalance_start(); "
                 "moves shards to them.");
}

Json NodeJson(const NodeForecast& f) {
  Json volumes = Json::array();
  for (const ForecastEntry& e : f.volumes) {
    volumes.push_back({{"volume", e.volume},
                       {"utilization_after", e.utilization_after},
                       {"read_iops", e.read_iops},
                       {"checkpoint_write_iops", e.checkpoint_write_iops}});
  }
  Json j = {{"name", f.name},
            {"bytes", f.bytes},
            {"read_iops", f.read_iops},
            {"write_iops", f.write_iops},
            {"max_utilization", f.max_utilization},
            {"max_utilization_before", f.max_utilization_before},
            {"fits", f.fits},
            {"note", f.note},
            {"volumes", volumes}};
  if (f.price > 0) j["price_per_month"] = f.price;
  return j;
}

void NodeToml(const std::string& header, const NodeForecast& f,
              internal::TomlWriter* w) {
  w->ArrayTable(header);
  w->String("name", f.name);
  w->Size("bytes", f.bytes);
  w->Measured("read_iops", f.read_iops);
  w->Measured("write_iops", f.write_iops);
  w->Measured("max_utilization", f.max_utilization, 3);
  w->Measured("max_utilization_before", f.max_utilization_before, 3);
  w->Bool("fits", f.fits);
  w->StringIfSet("note", f.note);
  w->NumberIfSet("price_per_month", f.price);
}

// "before" is the node today: the coordinator is today's host with the
// whole workload, a worker a new host ("new").
std::string NodeLine(const NodeForecast& f, bool is_worker) {
  const std::string before =
      is_worker ? "new"
                : (f.max_utilization_before > 0 ? Pct(f.max_utilization_before)
                                                : "?");
  return fmt::format(
      "  {:<12} {:>10} {:>9.0f} r/s {:>9.0f} w/s  busiest volume {:>4} -> "
      "{:>4}  {}\n",
      f.name, HumanSize(f.bytes), f.read_iops, f.write_iops, before,
      Pct(f.max_utilization), f.fits ? "meets the target" : "OVER");
}

}  // namespace

std::string CitusSql(const CitusPlan& plan) {
  std::string sql;
  SqlHeader(plan, &sql);
  SqlDroppedKeys(plan, &sql);
  SqlTables(plan, &sql);
  return sql;
}

std::string CitusToml(const CitusPlan& plan) {
  internal::TomlWriter w;
  w.Comment(
      "The Citus distribution (docs/citus.md): citus.sql carries it out; "
      "migrate does not.");
  w.Table("citus");
  w.String("reason", plan.reason);
  w.Integer("workers", plan.workers);
  w.String("workers_reason", plan.workers_why);
  w.Integer("shard_count", plan.shard_count);
  w.String("shard_count_reason", plan.shard_count_why);
  w.StringIfSet("worker_volumes", plan.worker_volumes);
  w.Size("reference_max_size", plan.reference_max_bytes);
  w.Number("reference_max_changes", plan.reference_max_changes);
  w.StringListIfSet("not_following", plan.distribution.not_following);
  w.StringListIfSet("verdicts", plan.verdicts);
  for (const ColocationGroup& g : plan.distribution.groups) {
    w.ArrayTable("citus.group");
    w.String("anchor", g.anchor);
    w.String("columns", g.column_note);
    w.StringList("tables", g.tables);
    w.StringListIfSet("evidence", g.evidence);
    w.Size("bytes_needed", g.bytes_needed);
  }
  for (const CitusTable& t : plan.distribution.tables) {
    w.ArrayTable("citus.table");
    w.String("name", t.table);
    w.String("role", CitusRoleName(t.role));
    w.StringIfSet("column", t.column);
    if (t.group >= 0) w.Integer("group", t.group + 1);
    w.StringIfSet("colocate_with", t.colocate_with);
    w.Size("bytes", t.bytes);
    w.String("why", t.why);
    w.StringListIfSet("cautions", t.cautions);
  }
  for (const auto& k : plan.distribution.dropped_keys) {
    w.ArrayTable("citus.dropped_foreign_key");
    w.String("table", k.table);
    w.String("constraint", k.constraint);
    w.String("why", k.why);
  }
  for (const NodeForecast& f : plan.worker_forecast) {
    NodeToml("citus.worker", f, &w);
  }
  NodeToml("citus.coordinator", plan.coordinator, &w);
  return w.str();
}

Json CitusJson(const CitusPlan& plan) {
  Json groups = Json::array(), tables = Json::array(), keys = Json::array(),
       workers = Json::array();
  for (const ColocationGroup& g : plan.distribution.groups) {
    Json edges = Json::array();
    for (const ColocationGroup::Edge& e : g.edges) {
      edges.push_back(
          {{"from", e.from}, {"to", e.to}, {"constraint", e.constraint}});
    }
    groups.push_back({{"anchor", g.anchor},
                      {"columns", g.column_note},
                      {"tables", g.tables},
                      {"bytes_needed", g.bytes_needed},
                      {"edges", edges},
                      {"evidence", g.evidence}});
  }
  for (const CitusTable& t : plan.distribution.tables) {
    Json j = {{"name", t.table},
              {"role", CitusRoleName(t.role)},
              {"bytes", t.bytes},
              {"bytes_needed", t.bytes_needed},
              {"read_iops", t.read_iops},
              {"write_iops", t.write_iops},
              {"changes_per_second", t.changes_per_second},
              {"why", t.why},
              {"cautions", t.cautions},
              {"references", t.references}};
    if (!t.column.empty()) j["column"] = t.column;
    if (t.group >= 0) j["group"] = t.group + 1;
    if (!t.colocate_with.empty()) j["colocate_with"] = t.colocate_with;
    tables.push_back(std::move(j));
  }
  for (const auto& k : plan.distribution.dropped_keys) {
    keys.push_back(
        {{"table", k.table}, {"constraint", k.constraint}, {"why", k.why}});
  }
  for (const NodeForecast& f : plan.worker_forecast) {
    workers.push_back(NodeJson(f));
  }
  return {{"reason", plan.reason},
          {"workers", plan.workers},
          {"workers_reason", plan.workers_why},
          {"shard_count", plan.shard_count},
          {"shard_count_reason", plan.shard_count_why},
          {"worker_volumes", plan.worker_volumes},
          {"reference_max_bytes", plan.reference_max_bytes},
          {"reference_max_changes", plan.reference_max_changes},
          {"groups", groups},
          {"tables", tables},
          {"not_following", plan.distribution.not_following},
          {"dropped_foreign_keys", keys},
          {"worker_forecast", workers},
          {"coordinator", NodeJson(plan.coordinator)},
          {"verdicts", plan.verdicts}};
}

std::string RenderCitusText(const CitusPlan& plan) {
  const Distribution& d = plan.distribution;
  std::string out = "\nCitus distribution (citus.sql)\n";
  out += fmt::format("  why: {}\n", plan.reason);
  out += fmt::format("  workers: {} ({})\n", plan.workers, plan.workers_why);
  out += fmt::format("  shards: {} ({})\n", plan.shard_count,
                     plan.shard_count_why);
  out += fmt::format(
      "  reference tables: at most {} at the horizon and {:.3g} row "
      "changes/s (--reference-max-size, --reference-max-changes)\n",
      HumanSize(plan.reference_max_bytes), plan.reference_max_changes);
  for (size_t i = 0; i < d.groups.size(); ++i) {
    const ColocationGroup& g = d.groups[i];
    out += fmt::format("  group {} by {} ({}):\n", i + 1, g.column_note,
                       HumanSize(g.bytes_needed));
    for (const std::string& name : g.tables) {
      const CitusTable* t = d.Find(name);
      out += fmt::format("    {} {}.{}  {}\n", name == g.anchor ? "*" : "-",
                         name, DisplayIdent(t->column), t->why);
    }
    for (const std::string& e : g.evidence) out += "    by " + e + "\n";
  }
  for (const CitusTable& t : d.tables) {
    if (t.role == CitusRole::kDistributed) continue;
    out +=
        fmt::format("  {:<9} {}: {}\n", CitusRoleName(t.role), t.table, t.why);
  }
  for (const std::string& line : d.not_following) {
    out += "  cannot follow its group: " + line + "\n";
  }
  for (const auto& k : d.dropped_keys) {
    out += fmt::format("  foreign key {} of {}: {}\n", k.constraint, k.table,
                       k.why);
  }
  for (const CitusTable& t : d.tables) {
    for (const std::string& c : t.cautions) {
      out += fmt::format("  caution, {}: {}\n", t.table, c);
    }
  }
  out +=
      "  forecast per node (at the peak; busiest volume today -> after, "
      "today the coordinator is the one host, \"?\" when where the data "
      "lives is not known):\n";
  for (const NodeForecast& f : plan.worker_forecast) out += NodeLine(f, true);
  out += NodeLine(plan.coordinator, false);
  if (!plan.coordinator.note.empty()) {
    out += "    coordinator: " + plan.coordinator.note + "\n";
  }
  for (const std::string& v : plan.verdicts) out += "  " + v + "\n";
  return out;
}

}  // namespace pglayout::planner
