// workload.toml: what the server does, observed live by `pglayout observe`,
// parsed from its logs, imported from Oracle segment statistics, or written
// by hand.

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <set>

#include "common/files.h"
#include "common/quote.h"
#include "common/toml_reader.h"
#include "common/toml_writer.h"

namespace pglayout {
namespace {

using internal::KeyReader;
using internal::TomlWriter;

constexpr RelationKind kAllKinds[] = {
    RelationKind::kTable, RelationKind::kIndex, RelationKind::kToast,
    RelationKind::kPartitioned, RelationKind::kMaterializedView};

void ReadKind(KeyReader* k, RelationKind* kind) {
  std::string text = RelationKindName(*kind);
  k->String("kind", &text);
  for (RelationKind candidate : kAllKinds) {
    if (text == RelationKindName(candidate)) {
      *kind = candidate;
      return;
    }
  }
  k->Fail("kind", fmt::format("'{}' is not one of table, index, toast, "
                              "partitioned, materialized_view",
                              text));
}

// Reads the optional |key| by its name in workload.toml; any other text
// is an error naming the key and the |names| it takes.
template <typename Trait>
void ReadTrait(const char* key, bool (*parse)(const std::string&, Trait*),
               const char* names, KeyReader* k, std::optional<Trait>* out) {
  std::string text;
  k->String(key, &text);
  if (text.empty()) return;
  Trait trait;
  if (!parse(text, &trait)) {
    k->Fail(key, std::string("is one of ") + names);
    return;
  }
  *out = trait;
}

void ReadFacts(KeyReader* k, Relation* r) {
  k->StringList("primary_key", &r->primary_key);
  k->StringListList("unique_keys", &r->unique_keys);
  k->StringList("foreign_keys_out", &r->foreign_keys_out);
  k->StringList("foreign_keys_in", &r->foreign_keys_in);
  k->StringList("dependent_views", &r->dependent_views);
  k->StringList("triggers", &r->triggers);
  k->StringList("identity_columns", &r->identity_columns);
  k->StringList("publications", &r->publications);
  k->StringListList("column_types", &r->column_types);
  for (const std::vector<std::string>& pair : r->column_types) {
    if (pair.size() != 2 || pair[0].empty() || pair[1].empty()) {
      k->Fail("column_types", "each entry is [\"column\", \"type\"]");
      break;
    }
  }
  k->Bool("rule_facts", &r->rule_facts);
  k->StringListList("key_constraints", &r->key_constraints);
  k->StringList("no_inherit_checks", &r->no_inherit_checks);
  k->StringList("before_row_triggers", &r->before_row_triggers);
  k->StringList("transition_row_triggers", &r->transition_row_triggers);
  k->StringListList("referenced_by_partitioned", &r->referenced_by_partitioned);
  k->StringList("row_key", &r->row_key);
  ReadTrait("replica_identity", ParseReplicaIdentity,
            "\"default\", \"full\", \"index\" or \"nothing\"", k,
            &r->replica_identity);
  ReadTrait("persistence", ParsePersistence,
            "\"permanent\", \"unlogged\" or \"temporary\"", k, &r->persistence);
  k->Bool("row_security", &r->row_security);
  k->Bool("partitioned", &r->partitioned);
  k->String("partition_of", &r->partition_of);
  k->String("partition_parent", &r->partition_parent);
  k->String("partition_key", &r->partition_key);
  if (!r->partition_of.empty()) r->partitioned = true;
}

Status ReadRelation(const toml::table& table, const std::string& file,
                    size_t index, Relation* r) {
  std::optional<std::string> name = table["name"].value<std::string>();
  KeyReader k(table, file,
              name ? fmt::format("[[relation]] '{}'", *name)
                   : fmt::format("[[relation]] #{}", index + 1));
  k.String("name", &r->name, KeyReader::kRequired);
  std::string schema, relname;
  if (!k.failed()) {
    Status st = SplitQualifiedName(r->name, &schema, &relname);
    if (!st.ok()) k.Fail("name", st.message());
  }
  ReadKind(&k, &r->kind);
  k.String("table", &r->table);
  k.Size("size", &r->size);
  k.Number("read_iops", &r->read_iops);
  k.Number("write_iops", &r->write_iops);
  k.Number("read_iops_avg", &r->read_iops_avg);
  k.Number("write_iops_avg", &r->write_iops_avg);
  k.Number("hits_per_second", &r->hits_per_second);
  k.Number("inserts_per_second", &r->inserts_per_second);
  k.Number("updates_per_second", &r->updates_per_second);
  k.Number("deletes_per_second", &r->deletes_per_second);
  k.Number("growth_bytes_per_second", &r->growth_bytes_per_second, -1e18);
  k.String("tablespace", &r->tablespace);
  ReadFacts(&k, r);
  return k.Finish();
}

Status ReadCheckpoints(const toml::table& table, const std::string& file,
                       Checkpoints* c) {
  KeyReader k(table, file, "[checkpoints]");
  k.Integer("timed", &c->timed, 0, INT64_MAX);
  k.Integer("requested", &c->requested, 0, INT64_MAX);
  k.Number("write_time_ms", &c->write_time_ms);
  k.Number("sync_time_ms", &c->sync_time_ms);
  k.Integer("buffers_written", &c->buffers_written, 0, INT64_MAX);
  return k.Finish();
}

Status ReadWal(const toml::table& table, const std::string& file, Workload* w) {
  KeyReader k(table, file, "[wal]");
  double rate = -1;
  k.Number("bytes_per_second", &rate);
  if (rate >= 0) w->wal_bytes_per_second = rate;
  k.Number("bytes_per_second_peak", &w->wal_bytes_per_second_peak);
  k.Number("commits_per_second", &w->commits_per_second);
  double syncs = -1;
  k.Number("syncs_per_second", &syncs);
  if (syncs >= 0) w->wal_syncs_per_second = syncs;
  return k.Finish();
}

Status ReadObservation(const toml::table& table, const std::string& file,
                       Workload* w) {
  KeyReader k(table, file, "[observation]");
  k.Duration("duration", &w->duration);
  k.String("source", &w->source);
  k.String("write_method", &w->write_method);
  return k.Finish();
}

Status ReadServer(const toml::table& table, const std::string& file,
                  Workload* w) {
  KeyReader k(table, file, "[server]");
  k.Bool("in_recovery", &w->in_recovery);
  k.String("locations", &w->locations_note);
  return k.Finish();
}

constexpr const char* kLocationRoles[] = {"data_directory", "pg_wal",
                                          "tablespace"};

void ReadLocationRole(KeyReader* k, DataLocation* l) {
  k->String("role", &l->role, KeyReader::kRequired);
  k->String("tablespace", &l->tablespace);
  if (k->failed()) return;
  if (std::find(std::begin(kLocationRoles), std::end(kLocationRoles),
                l->role) == std::end(kLocationRoles)) {
    k->Fail("role", fmt::format("'{}' is not one of data_directory, pg_wal, "
                                "tablespace",
                                l->role));
  } else if ((l->role == "tablespace") == l->tablespace.empty()) {
    k->Fail("tablespace",
            "names the tablespace of role = \"tablespace\" "
            "and only then");
  }
}

// [[location]]: where a directory of the server lives. The device keys
// (resolved, dev, mount_point, device) are absent when it was not resolved.
Status ReadLocations(const std::vector<const toml::table*>& tables,
                     const std::string& file, std::vector<DataLocation>* out) {
  for (const toml::table* t : tables) {
    KeyReader k(*t, file, "[[location]]");
    DataLocation l;
    ReadLocationRole(&k, &l);
    k.String("path", &l.path, KeyReader::kRequired);
    DeviceLocation on;
    k.String("resolved", &on.resolved);
    k.String("dev", &on.dev);
    k.String("mount_point", &on.mount_point);
    k.String("device", &on.device);
    if (!on.resolved.empty() || !on.dev.empty()) l.on = std::move(on);
    PGLAYOUT_RETURN_IF_ERROR(k.Finish());
    out->push_back(std::move(l));
  }
  return Status::Ok();
}

void WriteLocation(const DataLocation& l, TomlWriter* w) {
  w->ArrayTable("location");
  w->String("role", l.role);
  w->StringIfSet("tablespace", l.tablespace);
  w->String("path", l.path);
  if (!l.on) return;
  w->StringIfSet("resolved", l.on->resolved);
  w->StringIfSet("dev", l.on->dev);
  w->StringIfSet("mount_point", l.on->mount_point);
  w->StringIfSet("device", l.on->device);
}

// [[device_reads]]: what a device delivered against the server's reads.
Status ReadDeviceReads(const std::vector<const toml::table*>& tables,
                       const std::string& file, std::vector<DeviceReads>* out) {
  for (const toml::table* t : tables) {
    KeyReader k(*t, file, "[[device_reads]]");
    DeviceReads d;
    k.String("device", &d.device, KeyReader::kRequired);
    k.String("dev", &d.dev, KeyReader::kRequired);
    k.Number("server_block_reads", &d.server_block_reads, 0,
             KeyReader::kRequired);
    k.Number("device_reads", &d.device_reads, 0, KeyReader::kRequired);
    PGLAYOUT_RETURN_IF_ERROR(k.Finish());
    out->push_back(std::move(d));
  }
  return Status::Ok();
}

void WriteDeviceReads(const DeviceReads& d, TomlWriter* w) {
  w->ArrayTable("device_reads");
  w->String("device", d.device);
  w->String("dev", d.dev);
  w->Number("server_block_reads", d.server_block_reads);
  w->Number("device_reads", d.device_reads);
}

Status ReadTablespaces(const std::vector<const toml::table*>& tables,
                       const std::string& file,
                       std::vector<TablespaceInfo>* out) {
  for (const toml::table* t : tables) {
    KeyReader k(*t, file, "[[tablespace]]");
    TablespaceInfo info;
    k.String("name", &info.name, KeyReader::kRequired);
    k.String("location", &info.location);
    PGLAYOUT_RETURN_IF_ERROR(k.Finish());
    out->push_back(std::move(info));
  }
  return Status::Ok();
}

Status ReadIo(const std::vector<const toml::table*>& tables,
              const std::string& file, std::vector<IoRate>* out) {
  for (const toml::table* t : tables) {
    KeyReader k(*t, file, "[[io]]");
    IoRate io;
    k.String("backend_type", &io.backend_type, KeyReader::kRequired);
    k.String("object", &io.object);
    k.String("context", &io.context);
    k.Number("reads_per_second", &io.reads_per_second);
    k.Number("writes_per_second", &io.writes_per_second);
    k.Number("extends_per_second", &io.extends_per_second);
    k.Number("hits_per_second", &io.hits_per_second);
    k.Number("fsyncs_per_second", &io.fsyncs_per_second);
    PGLAYOUT_RETURN_IF_ERROR(k.Finish());
    out->push_back(std::move(io));
  }
  return Status::Ok();
}

void WriteIo(const IoRate& io, TomlWriter* w) {
  w->ArrayTable("io");
  w->String("backend_type", io.backend_type);
  w->StringIfSet("object", io.object);
  w->StringIfSet("context", io.context);
  w->NumberIfSet("reads_per_second", io.reads_per_second);
  w->NumberIfSet("writes_per_second", io.writes_per_second);
  w->NumberIfSet("extends_per_second", io.extends_per_second);
  w->NumberIfSet("hits_per_second", io.hits_per_second);
  w->NumberIfSet("fsyncs_per_second", io.fsyncs_per_second);
}

Status CheckUniqueRelations(const std::vector<const toml::table*>& tables,
                            const std::string& file,
                            const std::vector<Relation>& relations) {
  std::set<std::string> seen;
  for (size_t i = 0; i < relations.size(); ++i) {
    if (seen.insert(relations[i].name).second) continue;
    return Status::InvalidInput(
        fmt::format("{}: [[relation]] key 'name': duplicate relation '{}'",
                    internal::Position(file, tables[i]->get("name")->source()),
                    relations[i].name));
  }
  return Status::Ok();
}

void WriteFacts(const Relation& r, TomlWriter* w) {
  w->StringListIfSet("primary_key", r.primary_key);
  if (!r.unique_keys.empty()) w->StringListList("unique_keys", r.unique_keys);
  w->StringListIfSet("foreign_keys_out", r.foreign_keys_out);
  w->StringListIfSet("foreign_keys_in", r.foreign_keys_in);
  w->StringListIfSet("dependent_views", r.dependent_views);
  w->StringListIfSet("triggers", r.triggers);
  w->StringListIfSet("identity_columns", r.identity_columns);
  w->StringListIfSet("publications", r.publications);
  if (!r.column_types.empty())
    w->StringListList("column_types", r.column_types);
  if (r.rule_facts) {
    w->Bool("rule_facts", true);
    if (!r.key_constraints.empty()) {
      w->StringListList("key_constraints", r.key_constraints);
    }
    w->StringListIfSet("no_inherit_checks", r.no_inherit_checks);
    w->StringListIfSet("before_row_triggers", r.before_row_triggers);
    w->StringListIfSet("transition_row_triggers", r.transition_row_triggers);
    if (!r.referenced_by_partitioned.empty()) {
      w->StringListList("referenced_by_partitioned",
                        r.referenced_by_partitioned);
    }
    w->StringListIfSet("row_key", r.row_key);
  }
  if (r.replica_identity) {
    w->String("replica_identity", ReplicaIdentityName(*r.replica_identity));
  }
  if (r.persistence) w->String("persistence", PersistenceName(*r.persistence));
  if (r.row_security) w->Bool("row_security", true);
  if (r.partitioned) w->Bool("partitioned", true);
  w->StringIfSet("partition_of", r.partition_of);
  if (r.partition_parent != r.partition_of) {
    w->StringIfSet("partition_parent", r.partition_parent);
  }
  w->StringIfSet("partition_key", r.partition_key);
}

void WriteRelation(const Relation& r, TomlWriter* w) {
  w->ArrayTable("relation");
  w->String("name", r.name);
  w->String("kind", RelationKindName(r.kind));
  w->StringIfSet("table", r.table);
  w->Size("size", r.size);
  w->Number("read_iops", r.read_iops);
  w->Number("write_iops", r.write_iops);
  w->NumberIfSet("read_iops_avg", r.read_iops_avg);
  w->NumberIfSet("write_iops_avg", r.write_iops_avg);
  w->NumberIfSet("hits_per_second", r.hits_per_second);
  w->NumberIfSet("inserts_per_second", r.inserts_per_second);
  w->NumberIfSet("updates_per_second", r.updates_per_second);
  w->NumberIfSet("deletes_per_second", r.deletes_per_second);
  w->NumberIfSet("growth_bytes_per_second", r.growth_bytes_per_second);
  w->StringIfSet("tablespace", r.tablespace);
  WriteFacts(r, w);
}

}  // namespace

Status ParseWorkload(std::string_view text, const std::string& source_name,
                     Workload* out) {
  toml::table root;
  PGLAYOUT_RETURN_IF_ERROR(internal::ParseToml(text, source_name, &root));
  return internal::WorkloadFromToml(root, source_name, out);
}

namespace internal {

Status WorkloadFromToml(const toml::table& root, const std::string& source_name,
                        Workload* out) {
  Workload w;
  KeyReader k(root, source_name, "the workload file");
  k.StringMap("settings", &w.settings);
  const toml::table* observation = k.Table("observation");
  const toml::table* server = k.Table("server");
  const toml::table* wal = k.Table("wal");
  const toml::table* checkpoints = k.Table("checkpoints");
  std::vector<const toml::table*> tablespaces = k.Tables("tablespace");
  std::vector<const toml::table*> locations = k.Tables("location");
  std::vector<const toml::table*> device_reads = k.Tables("device_reads");
  std::vector<const toml::table*> io = k.Tables("io");
  std::vector<const toml::table*> relations = k.Tables("relation");
  PGLAYOUT_RETURN_IF_ERROR(k.Finish());
  if (observation) {
    PGLAYOUT_RETURN_IF_ERROR(ReadObservation(*observation, source_name, &w));
  }
  if (server) PGLAYOUT_RETURN_IF_ERROR(ReadServer(*server, source_name, &w));
  if (wal) PGLAYOUT_RETURN_IF_ERROR(ReadWal(*wal, source_name, &w));
  if (checkpoints) {
    PGLAYOUT_RETURN_IF_ERROR(
        ReadCheckpoints(*checkpoints, source_name, &w.checkpoints));
  }
  PGLAYOUT_RETURN_IF_ERROR(
      ReadTablespaces(tablespaces, source_name, &w.tablespaces));
  PGLAYOUT_RETURN_IF_ERROR(ReadLocations(locations, source_name, &w.locations));
  PGLAYOUT_RETURN_IF_ERROR(
      ReadDeviceReads(device_reads, source_name, &w.device_reads));
  PGLAYOUT_RETURN_IF_ERROR(ReadIo(io, source_name, &w.io));
  for (size_t i = 0; i < relations.size(); ++i) {
    w.relations.emplace_back();
    PGLAYOUT_RETURN_IF_ERROR(
        ReadRelation(*relations[i], source_name, i, &w.relations.back()));
  }
  PGLAYOUT_RETURN_IF_ERROR(
      CheckUniqueRelations(relations, source_name, w.relations));
  *out = std::move(w);
  return Status::Ok();
}

}  // namespace internal

std::string WorkloadToToml(const Workload& w) {
  TomlWriter t;
  t.Comment(
      "pglayout workload: rates per second at the peak (95th percentile of\n"
      "intervals) unless marked _avg; IOPS are 8 KiB blocks; sizes in powers\n"
      "of 1024, all forks of a relation (main, free space map, visibility\n"
      "map), without its TOAST relation and indexes, which have rows of\n"
      "their own.");
  t.Table("observation");
  t.Duration("duration", w.duration);
  t.StringIfSet("source", w.source);
  t.StringIfSet("write_method", w.write_method);
  if (w.in_recovery || !w.locations_note.empty()) {
    t.Table("server");
    if (w.in_recovery) t.Bool("in_recovery", true);
    t.StringIfSet("locations", w.locations_note);
  }
  t.Table("settings");
  t.StringMapEntries(w.settings);
  t.Table("wal");
  if (w.wal_bytes_per_second) {
    t.Number("bytes_per_second", *w.wal_bytes_per_second);
  } else {
    t.Comment("bytes_per_second: unknown (not in the input)");
  }
  t.NumberIfSet("bytes_per_second_peak", w.wal_bytes_per_second_peak);
  t.NumberIfSet("commits_per_second", w.commits_per_second);
  if (w.wal_syncs_per_second) {
    t.Number("syncs_per_second", *w.wal_syncs_per_second);
  }
  t.Table("checkpoints");
  t.Integer("timed", w.checkpoints.timed);
  t.Integer("requested", w.checkpoints.requested);
  t.NumberIfSet("write_time_ms", w.checkpoints.write_time_ms);
  t.NumberIfSet("sync_time_ms", w.checkpoints.sync_time_ms);
  if (w.checkpoints.buffers_written != 0) {
    t.Integer("buffers_written", w.checkpoints.buffers_written);
  }
  for (const TablespaceInfo& ts : w.tablespaces) {
    t.ArrayTable("tablespace");
    t.String("name", ts.name);
    t.StringIfSet("location", ts.location);
  }
  for (const DataLocation& l : w.locations) WriteLocation(l, &t);
  for (const DeviceReads& d : w.device_reads) WriteDeviceReads(d, &t);
  for (const IoRate& io : w.io) WriteIo(io, &t);
  for (const Relation& r : w.relations) WriteRelation(r, &t);
  return t.str();
}

}  // namespace pglayout
