#include "common/json.h"

#include "common/text.h"

namespace pglayout {
namespace {

// A copy of |json| whose every key and string is valid UTF-8.
Json WithValidText(const Json& json) {
  if (json.is_string()) {
    return EscapeInvalidUtf8(json.get_ref<const std::string&>());
  }
  if (json.is_array()) {
    Json out = Json::array();
    for (const Json& element : json) out.push_back(WithValidText(element));
    return out;
  }
  if (json.is_object()) {
    Json out = Json::object();
    for (const auto& [key, value] : json.items()) {
      out[EscapeInvalidUtf8(key)] = WithValidText(value);
    }
    return out;
  }
  return json;
}

Json TopologyJson(const Topology& t) {
  return Json{{"device", t.device},
              {"dev", t.dev},
              {"mount_point", t.mount_point},
              {"disk", t.disk},
              {"kind", t.kind},
              {"model", t.model},
              {"raid_level", t.raid_level},
              {"dm_target", t.dm_target},
              {"members", t.members},
              {"chunk", t.chunk},
              {"raid_disks", t.raid_disks},
              {"degraded", t.degraded},
              {"sync_action", t.sync_action},
              {"partition_start", t.partition_start},
              {"warnings", t.warnings},
              {"logical_block_size", t.logical_block_size},
              {"physical_block_size", t.physical_block_size},
              {"minimum_io_size", t.minimum_io_size},
              {"optimal_io_size", t.optimal_io_size},
              {"rotational", t.rotational},
              {"nr_requests", t.nr_requests},
              {"max_sectors_kb", t.max_sectors_kb},
              {"write_cache", t.write_cache},
              {"filesystem", t.filesystem},
              {"mount_options", t.mount_options}};
}

Json CurvesJson(const Volume& v) {
  Json randread = Json::array(), seqread = Json::array(),
       randwrite = Json::array();
  for (const RandomReadPoint& p : v.randread) {
    randread.push_back({{"queue_depth", p.queue_depth},
                        {"iops", p.iops},
                        {"mbps", p.mbps},
                        {"p50_us", p.p50_us},
                        {"p90_us", p.p90_us},
                        {"p99_us", p.p99_us},
                        {"p999_us", p.p999_us},
                        {"max_us", p.max_us},
                        {"cpu_us_per_io", p.cpu_us_per_io}});
  }
  Json paced_read = Json::array();
  for (const PacedReadPoint& p : v.paced_read) {
    paced_read.push_back({{"offered_iops", p.offered_iops},
                          {"iops", p.iops},
                          {"mean_us", p.mean_us},
                          {"p50_us", p.p50_us},
                          {"p99_us", p.p99_us}});
  }
  for (const SequentialReadPoint& p : v.seqread) {
    seqread.push_back({{"request_size", p.request_size},
                       {"queue_depth", p.queue_depth},
                       {"mbps", p.mbps}});
  }
  for (const RandomWritePoint& p : v.randwrite) {
    randwrite.push_back({{"queue_depth", p.queue_depth},
                         {"iops", p.iops},
                         {"p50_us", p.p50_us},
                         {"p99_us", p.p99_us}});
  }
  Json syncwrite = Json::array();
  for (const SyncWritePoint& p : v.syncwrite) {
    syncwrite.push_back({{"method", p.method},
                         {"request_size", p.request_size},
                         {"iops", p.iops},
                         {"p50_us", p.p50_us},
                         {"p99_us", p.p99_us}});
  }
  return Json{{"randread", randread},
              {"paced_read", paced_read},
              {"seqread", seqread},
              {"randwrite", randwrite},
              {"syncwrite", syncwrite}};
}

Json DurableWriteJson(const DurableWrite& d) {
  return Json{{"bytes", d.bytes},
              {"mbps", d.mbps},
              {"seconds_to_durable", d.seconds_to_durable},
              {"sync_seconds", d.sync_seconds},
              {"user_cpu_seconds", d.user_cpu_seconds},
              {"system_cpu_seconds", d.system_cpu_seconds}};
}

Json ConcurrentJson(const Concurrent& c) {
  Json volumes = Json::array();
  for (const ConcurrentVolume& v : c.volumes) {
    volumes.push_back({{"name", v.name},
                       {"alone_read_iops", v.alone_read_iops},
                       {"alone_read_mbps", v.alone_read_mbps},
                       {"together_read_iops", v.together_read_iops},
                       {"together_read_mbps", v.together_read_mbps}});
  }
  return Json{{"seconds", c.seconds},
              {"read_iops", c.read_iops},
              {"read_mbps", c.read_mbps},
              {"sum_alone_read_iops", c.sum_alone_read_iops},
              {"sum_alone_read_mbps", c.sum_alone_read_mbps},
              {"iops_ratio", c.iops_ratio},
              {"mbps_ratio", c.mbps_ratio},
              {"verdict", c.verdict},
              {"volumes", volumes}};
}

Json VolumeJson(const Volume& v) {
  Json j{{"name", v.name},
         {"path", v.path},
         {"capacity", v.capacity},
         {"read_iops", v.read_iops},
         {"write_iops", v.write_iops},
         {"read_mbps", v.read_mbps},
         {"write_mbps", v.write_mbps},
         {"read_latency_us", v.read_latency_us},
         {"sync_write_latency_us", v.sync_write_latency_us},
         {"members", v.members},
         {"chunk", v.chunk},
         {"kind", v.kind},
         {"read_latency_p99_us", v.read_latency_p99_us},
         {"sync_write_latency_p99_us", v.sync_write_latency_p99_us},
         {"free_bytes", v.free_bytes},
         {"stripe_read_size", v.stripe_read_size},
         {"stripe_read_size_min", v.stripe_read_size_min},
         {"stripe_read_size_max", v.stripe_read_size_max},
         {"stripe_read_repeats", v.stripe_read_repeats},
         {"stripe_width", v.stripe_width},
         {"readers_to_saturate", v.readers_to_saturate},
         {"shares_device_with", v.shares_device_with},
         {"probe_engine", v.probe_engine}};
  j["topology"] = v.topology ? TopologyJson(*v.topology) : Json(nullptr);
  if (v.buffered_vs_direct) {
    j["buffered_vs_direct"] = {
        {"buffered", DurableWriteJson(v.buffered_vs_direct->buffered)},
        {"direct", DurableWriteJson(v.buffered_vs_direct->direct)}};
  }
  j["curves"] = CurvesJson(v);
  return j;
}

Json RelationJson(const Relation& r) {
  return Json{
      {"name", r.name},
      {"kind", RelationKindName(r.kind)},
      {"table", r.table},
      {"size", r.size},
      {"read_iops", r.read_iops},
      {"write_iops", r.write_iops},
      {"read_iops_avg", r.read_iops_avg},
      {"write_iops_avg", r.write_iops_avg},
      {"hits_per_second", r.hits_per_second},
      {"inserts_per_second", r.inserts_per_second},
      {"updates_per_second", r.updates_per_second},
      {"deletes_per_second", r.deletes_per_second},
      {"growth_bytes_per_second", r.growth_bytes_per_second},
      {"tablespace", r.tablespace},
      {"primary_key", r.primary_key},
      {"unique_keys", r.unique_keys},
      {"foreign_keys_out", r.foreign_keys_out},
      {"foreign_keys_in", r.foreign_keys_in},
      {"dependent_views", r.dependent_views},
      {"triggers", r.triggers},
      {"identity_columns", r.identity_columns},
      {"publications", r.publications},
      {"column_types", r.column_types},
      {"replica_identity",
       r.replica_identity ? ReplicaIdentityName(*r.replica_identity) : ""},
      {"persistence", r.persistence ? PersistenceName(*r.persistence) : ""},
      {"row_security", r.row_security},
      {"partitioned", r.partitioned},
      {"partition_of", r.partition_of},
      {"partition_parent", PartitionParent(r)}};
}

Json LocationJson(const DataLocation& l) {
  Json j{{"role", l.role},
         {"tablespace", l.tablespace},
         {"path", l.path},
         {"on", nullptr}};
  if (l.on) {
    j["on"] = {{"resolved", l.on->resolved},
               {"dev", l.on->dev},
               {"mount_point", l.on->mount_point},
               {"device", l.on->device}};
  }
  return j;
}

Json WalJson(const Plan& plan) {
  Json j{{"volume", plan.wal_volume},
         {"reason", plan.wal_reason},
         {"now", plan.wal_now},
         {"now_note", plan.wal_now_note},
         {"move", nullptr}};
  if (plan.wal_move) {
    const WalMove& m = *plan.wal_move;
    j["move"] = {
        {"needs_restart", true},
        {"from_volume", m.from_volume},
        {"from_path", m.from_path},
        {"to_path", m.to_path},
        {"data_directory", m.data_directory},
        {"from_utilization_until_moved", m.from_utilization_until_moved}};
  }
  return j;
}

Json PlacementJson(const Placement& p, const Plan& plan) {
  Json volumes = Json::array();
  for (const std::string& ts : p.tablespaces) {
    const TablespaceSpec* spec = plan.FindTablespace(ts);
    volumes.push_back(spec ? spec->volume : "");
  }
  return Json{
      {"relation", p.relation},       {"strategy", StrategyName(p.strategy)},
      {"tablespaces", p.tablespaces}, {"volumes", volumes},
      {"partitions", p.partitions},   {"key", p.key},
      {"online", p.online},           {"reason", p.reason}};
}

Json PlanExtrasJson(const Plan& plan) {
  Json stripes = Json::array(), forecast = Json::array();
  for (const Stripe& s : plan.stripes) {
    stripes.push_back({{"name", s.name},
                       {"members", s.members},
                       {"chunk", s.chunk},
                       {"tool", s.tool},
                       {"reason", s.reason}});
  }
  for (const ForecastEntry& f : plan.forecast) {
    forecast.push_back({{"volume", f.volume},
                        {"utilization_before", f.utilization_before},
                        {"utilization_after", f.utilization_after},
                        {"read_latency_us_before", f.read_latency_us_before},
                        {"read_latency_us_after", f.read_latency_us_after},
                        {"read_iops", f.read_iops},
                        {"write_iops", f.write_iops},
                        {"checkpoint_write_iops", f.checkpoint_write_iops},
                        {"wal_write_iops", f.wal_write_iops},
                        {"wal_write_mbps", f.wal_write_mbps},
                        {"backup_read_mbps", f.backup_read_mbps}});
  }
  return Json{
      {"stripes", stripes},
      {"forecast", forecast},
      {"backup",
       {{"wal-g", plan.backup_walg}, {"pgbackrest", plan.backup_pgbackrest}}}};
}

}  // namespace

Json ToJson(const VolumeSet& volumes) {
  const Host& h = volumes.host;
  Json list = Json::array();
  for (const Volume& v : volumes.volumes) list.push_back(VolumeJson(v));
  Json j{{"host",
          {{"vcpus", h.vcpus},
           {"memory", h.memory},
           {"instance_type", h.instance_type},
           {"bandwidth_cap_mbps", h.bandwidth_cap_mbps},
           {"iops_cap", h.iops_cap}}},
         {"volumes", list}};
  if (volumes.concurrent) j["concurrent"] = ConcurrentJson(*volumes.concurrent);
  return j;
}

Json ToJson(const Workload& w) {
  Json tablespaces = Json::array(), relations = Json::array(),
       locations = Json::array();
  for (const TablespaceInfo& t : w.tablespaces) {
    tablespaces.push_back({{"name", t.name}, {"location", t.location}});
  }
  for (const DataLocation& l : w.locations) {
    locations.push_back(LocationJson(l));
  }
  for (const Relation& r : w.relations) relations.push_back(RelationJson(r));
  Json io = Json::array();
  for (const IoRate& i : w.io) {
    io.push_back({{"backend_type", i.backend_type},
                  {"object", i.object},
                  {"context", i.context},
                  {"reads_per_second", i.reads_per_second},
                  {"writes_per_second", i.writes_per_second},
                  {"extends_per_second", i.extends_per_second},
                  {"hits_per_second", i.hits_per_second},
                  {"fsyncs_per_second", i.fsyncs_per_second}});
  }
  const Checkpoints& c = w.checkpoints;
  return Json{
      {"observation",
       {{"duration", w.duration},
        {"source", w.source},
        {"write_method", w.write_method}}},
      {"server",
       {{"in_recovery", w.in_recovery}, {"locations_note", w.locations_note}}},
      {"settings", w.settings},
      {"wal",
       {{"bytes_per_second",
         w.wal_bytes_per_second ? Json(*w.wal_bytes_per_second) : Json()},
        {"bytes_per_second_peak", w.wal_bytes_per_second_peak},
        {"commits_per_second", w.commits_per_second},
        {"syncs_per_second",
         w.wal_syncs_per_second ? Json(*w.wal_syncs_per_second) : Json()}}},
      {"checkpoints",
       {{"timed", c.timed},
        {"requested", c.requested},
        {"write_time_ms", c.write_time_ms},
        {"sync_time_ms", c.sync_time_ms},
        {"buffers_written", c.buffers_written}}},
      {"tablespaces", tablespaces},
      {"locations", locations},
      {"io", io},
      {"relations", relations}};
}

Json ToJson(const Plan& plan) {
  Json tablespaces = Json::array(), placements = Json::array(),
       settings = Json::array();
  for (const TablespaceSpec& t : plan.tablespaces) {
    tablespaces.push_back({{"name", t.name},
                           {"path", t.path},
                           {"volume", t.volume},
                           {"options", t.options}});
  }
  for (const Placement& p : plan.placements) {
    placements.push_back(PlacementJson(p, plan));
  }
  for (const SettingChange& s : plan.settings) {
    settings.push_back({{"name", s.name},
                        {"value", s.value},
                        {"previous", s.previous},
                        {"reason", s.reason}});
  }
  Json j{{"plan",
          {{"target_utilization", plan.target_utilization},
           {"prefer", plan.prefer},
           {"warnings", plan.warnings},
           {"verdicts", plan.verdicts}}},
         {"wal", WalJson(plan)},
         {"tablespaces", tablespaces},
         {"placements", placements},
         {"settings", settings}};
  j.update(PlanExtrasJson(plan));
  return j;
}

std::string JsonText(const Json& json, int indent) {
  // nlohmann writes a NaN or an infinity as null; only bad UTF-8 throws.
  return WithValidText(json).dump(indent);
}

}  // namespace pglayout
