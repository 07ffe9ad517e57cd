// volumes.toml: the host and its volumes, declared by a person or measured
// by `pglayout probe`.

#include <fmt/format.h>

#include <set>

#include "common/files.h"
#include "common/stripe_read.h"
#include "common/text.h"
#include "common/toml_reader.h"
#include "common/toml_writer.h"

namespace pglayout {
namespace {

using internal::KeyReader;
using internal::TomlWriter;

Status ReadHost(const toml::table& table, const std::string& file, Host* host) {
  KeyReader r(table, file, "[host]");
  r.Int("vcpus", &host->vcpus, 0, 1 << 20);
  r.Size("memory", &host->memory);
  r.String("instance_type", &host->instance_type);
  r.Number("bandwidth_cap_mbps", &host->bandwidth_cap_mbps);
  r.Number("iops_cap", &host->iops_cap);
  return r.Finish();
}

Status ReadTopology(const toml::table& table, const std::string& file,
                    const std::string& context, Topology* t) {
  KeyReader r(table, file, context + " [topology]");
  r.String("device", &t->device);
  r.String("dev", &t->dev);
  r.String("mount_point", &t->mount_point);
  r.String("disk", &t->disk);
  r.String("kind", &t->kind);
  r.String("model", &t->model);
  r.String("raid_level", &t->raid_level);
  r.String("dm_target", &t->dm_target);
  r.StringList("members", &t->members);
  r.Size("chunk", &t->chunk);
  r.Int("raid_disks", &t->raid_disks, 0, 1 << 16);
  r.Int("degraded", &t->degraded, 0, 1 << 16);
  r.String("sync_action", &t->sync_action);
  r.Size("partition_start", &t->partition_start);
  r.StringList("warnings", &t->warnings);
  int64_t lbs = 0, pbs = 0;
  r.Integer("logical_block_size", &lbs, 0, 1 << 20);
  r.Integer("physical_block_size", &pbs, 0, 1 << 20);
  t->logical_block_size = static_cast<uint32_t>(lbs);
  t->physical_block_size = static_cast<uint32_t>(pbs);
  r.Size("minimum_io_size", &t->minimum_io_size);
  r.Size("optimal_io_size", &t->optimal_io_size);
  r.Bool("rotational", &t->rotational);
  r.Int("nr_requests", &t->nr_requests, 0, 1 << 24);
  r.Int("max_sectors_kb", &t->max_sectors_kb, 0, 1 << 30);
  r.String("write_cache", &t->write_cache);
  r.String("filesystem", &t->filesystem);
  r.String("mount_options", &t->mount_options);
  return r.Finish();
}

Status ReadRandomRead(const toml::table& table, const std::string& file,
                      const std::string& context, RandomReadPoint* p) {
  KeyReader r(table, file, context + " [[randread]]");
  r.Int("queue_depth", &p->queue_depth, 1, 65536, KeyReader::kRequired);
  r.Number("iops", &p->iops, 0, KeyReader::kRequired);
  r.Number("mbps", &p->mbps);
  r.Number("p50_us", &p->p50_us, 0, KeyReader::kRequired);
  r.Number("p90_us", &p->p90_us);
  r.Number("p99_us", &p->p99_us);
  r.Number("p999_us", &p->p999_us);
  r.Number("max_us", &p->max_us);
  r.Number("cpu_us_per_io", &p->cpu_us_per_io);
  return r.Finish();
}

Status ReadPacedRead(const toml::table& table, const std::string& file,
                     const std::string& context, PacedReadPoint* p) {
  KeyReader r(table, file, context + " [[paced_read]]");
  r.Number("offered_iops", &p->offered_iops, 0, KeyReader::kRequired);
  r.Number("iops", &p->iops, 0, KeyReader::kRequired);
  r.Number("mean_us", &p->mean_us, 0, KeyReader::kRequired);
  r.Number("p50_us", &p->p50_us);
  r.Number("p99_us", &p->p99_us);
  if (!r.failed() && p->offered_iops <= 0) {
    r.Fail("offered_iops", "must be above 0");
  }
  if (!r.failed() && p->mean_us <= 0) r.Fail("mean_us", "must be above 0");
  return r.Finish();
}

Status ReadSequentialRead(const toml::table& table, const std::string& file,
                          const std::string& context, SequentialReadPoint* p) {
  KeyReader r(table, file, context + " [[seqread]]");
  r.Size("request_size", &p->request_size, KeyReader::kRequired);
  r.Int("queue_depth", &p->queue_depth, 1, 65536, KeyReader::kRequired);
  r.Number("mbps", &p->mbps, 0, KeyReader::kRequired);
  return r.Finish();
}

Status ReadRandomWrite(const toml::table& table, const std::string& file,
                       const std::string& context, RandomWritePoint* p) {
  KeyReader r(table, file, context + " [[randwrite]]");
  r.Int("queue_depth", &p->queue_depth, 1, 65536, KeyReader::kRequired);
  r.Number("iops", &p->iops, 0, KeyReader::kRequired);
  r.Number("p50_us", &p->p50_us);
  r.Number("p99_us", &p->p99_us);
  return r.Finish();
}

Status ReadSyncWrite(const toml::table& table, const std::string& file,
                     const std::string& context, SyncWritePoint* p) {
  KeyReader r(table, file, context + " [[syncwrite]]");
  r.String("method", &p->method, KeyReader::kRequired);
  r.Size("request_size", &p->request_size, KeyReader::kRequired);
  r.Number("iops", &p->iops, 0, KeyReader::kRequired);
  r.Number("p50_us", &p->p50_us);
  r.Number("p99_us", &p->p99_us);
  return r.Finish();
}

// Reads every element of [[key]] with |read_one|, appending to |out|.
template <typename T, typename ReadOne>
void ReadCurve(KeyReader* r, std::string_view key, const std::string& file,
               const std::string& context, std::vector<T>* out,
               ReadOne read_one, Status* status) {
  for (const toml::table* t : r->Tables(key)) {
    if (!status->ok()) return;
    T point;
    *status = read_one(*t, file, context, &point);
    out->push_back(point);
  }
}

Status ReadDurableWrite(const toml::table& table, const std::string& file,
                        const std::string& context, DurableWrite* d) {
  KeyReader r(table, file, context);
  r.Size("bytes", &d->bytes, KeyReader::kRequired);
  r.Number("mbps", &d->mbps, 0, KeyReader::kRequired);
  r.Number("seconds_to_durable", &d->seconds_to_durable, 0,
           KeyReader::kRequired);
  r.Number("sync_seconds", &d->sync_seconds);
  r.Number("user_cpu_seconds", &d->user_cpu_seconds);
  r.Number("system_cpu_seconds", &d->system_cpu_seconds);
  return r.Finish();
}

// [volume.buffered_vs_direct] with its [.buffered] and [.direct] tables.
Status ReadBufferedVsDirect(const toml::table& table, const std::string& file,
                            const std::string& context, BufferedVsDirect* b) {
  const std::string where = context + " [buffered_vs_direct]";
  KeyReader r(table, file, where);
  const toml::table* buffered = r.Table("buffered");
  const toml::table* direct = r.Table("direct");
  if (buffered == nullptr) r.Fail("buffered", "missing");
  if (direct == nullptr) r.Fail("direct", "missing");
  PGLAYOUT_RETURN_IF_ERROR(r.Finish());
  PGLAYOUT_RETURN_IF_ERROR(
      ReadDurableWrite(*buffered, file, where + " [buffered]", &b->buffered));
  return ReadDurableWrite(*direct, file, where + " [direct]", &b->direct);
}

// "[[volume]] 'data1'", or "[[volume]] #2" when the name is missing.
std::string VolumeContext(const toml::table& table, size_t index) {
  std::optional<std::string> name = table["name"].value<std::string>();
  if (name && !name->empty()) return fmt::format("[[volume]] '{}'", *name);
  return fmt::format("[[volume]] #{}", index + 1);
}

Status ReadVolume(const toml::table& table, const std::string& file,
                  size_t index, Volume* v) {
  const std::string context = VolumeContext(table, index);
  KeyReader k(table, file, context);
  k.String("name", &v->name, KeyReader::kRequired);
  if (!k.failed() && v->name.empty()) k.Fail("name", "must not be empty");
  k.String("path", &v->path);
  if (!k.failed() && !v->path.empty() && v->path.front() != '/') {
    // The plan makes a tablespace there: PostgreSQL takes absolute paths.
    k.Fail("path", "must be an absolute path (got \"" +
                       DisplayName(v->path, internal::kMaxKeyShown) + "\")");
  }
  k.Size("capacity", &v->capacity, KeyReader::kRequired);
  k.Number("read_iops", &v->read_iops);
  k.Number("write_iops", &v->write_iops);
  k.Number("read_mbps", &v->read_mbps);
  k.Number("write_mbps", &v->write_mbps);
  k.Number("read_latency_us", &v->read_latency_us);
  k.Number("sync_write_latency_us", &v->sync_write_latency_us);
  k.Int("members", &v->members, 1, 1024);
  k.Size("chunk", &v->chunk);
  k.String("kind", &v->kind);
  k.String("iops_budget", &v->iops_budget);
  if (!k.failed() && !v->iops_budget.empty() && v->iops_budget != "combined" &&
      v->iops_budget != "separate") {
    k.Fail("iops_budget", "must be \"combined\" or \"separate\", got \"" +
                              v->iops_budget + "\"");
  }
  k.Number("read_latency_p99_us", &v->read_latency_p99_us);
  k.Number("sync_write_latency_p99_us", &v->sync_write_latency_p99_us);
  k.Size("free_bytes", &v->free_bytes);
  k.Size("stripe_read_size", &v->stripe_read_size);
  k.Size("stripe_read_size_min", &v->stripe_read_size_min);
  k.Size("stripe_read_size_max", &v->stripe_read_size_max);
  k.Int("stripe_read_repeats", &v->stripe_read_repeats, 0, 1000);
  k.Size("stripe_width", &v->stripe_width);
  k.Int("readers_to_saturate", &v->readers_to_saturate, 0, 65536);
  k.StringList("shares_device_with", &v->shares_device_with);
  k.String("probe_engine", &v->probe_engine);
  if (!k.failed() && v->members > 1 && v->chunk == 0) {
    k.Fail("members", "a volume striped over several members needs 'chunk'");
  }
  Status curves;
  if (const toml::table* t = k.Table("topology"); t != nullptr) {
    v->topology.emplace();
    curves = ReadTopology(*t, file, context, &*v->topology);
  }
  if (const toml::table* t = k.Table("buffered_vs_direct");
      t != nullptr && curves.ok()) {
    v->buffered_vs_direct.emplace();
    curves = ReadBufferedVsDirect(*t, file, context, &*v->buffered_vs_direct);
  }
  ReadCurve(&k, "randread", file, context, &v->randread, ReadRandomRead,
            &curves);
  ReadCurve(&k, "paced_read", file, context, &v->paced_read, ReadPacedRead,
            &curves);
  ReadCurve(&k, "seqread", file, context, &v->seqread, ReadSequentialRead,
            &curves);
  ReadCurve(&k, "randwrite", file, context, &v->randwrite, ReadRandomWrite,
            &curves);
  ReadCurve(&k, "syncwrite", file, context, &v->syncwrite, ReadSyncWrite,
            &curves);
  PGLAYOUT_RETURN_IF_ERROR(k.Finish());
  return curves;
}

Status ReadConcurrentVolume(const toml::table& table, const std::string& file,
                            const std::string& context, ConcurrentVolume* c) {
  KeyReader r(table, file, context + " [[volume]]");
  r.String("name", &c->name, KeyReader::kRequired);
  r.Number("alone_read_iops", &c->alone_read_iops);
  r.Number("alone_read_mbps", &c->alone_read_mbps);
  r.Number("together_read_iops", &c->together_read_iops);
  r.Number("together_read_mbps", &c->together_read_mbps);
  return r.Finish();
}

Status ReadConcurrent(const toml::table& table, const std::string& file,
                      Concurrent* c) {
  const std::string context = "[concurrent]";
  KeyReader r(table, file, context);
  r.Number("seconds", &c->seconds);
  r.Number("read_iops", &c->read_iops, 0, KeyReader::kRequired);
  r.Number("read_mbps", &c->read_mbps, 0, KeyReader::kRequired);
  r.Number("sum_alone_read_iops", &c->sum_alone_read_iops);
  r.Number("sum_alone_read_mbps", &c->sum_alone_read_mbps);
  r.Number("iops_ratio", &c->iops_ratio);
  r.Number("mbps_ratio", &c->mbps_ratio);
  r.String("verdict", &c->verdict);
  Status status;
  ReadCurve(&r, "volume", file, context, &c->volumes, ReadConcurrentVolume,
            &status);
  PGLAYOUT_RETURN_IF_ERROR(r.Finish());
  return status;
}

Status CheckUniqueNames(const toml::table& root, const std::string& file,
                        const std::vector<Volume>& volumes) {
  std::set<std::string> seen;
  const toml::array* array = root["volume"].as_array();
  for (size_t i = 0; i < volumes.size(); ++i) {
    if (seen.insert(volumes[i].name).second) continue;
    const toml::node* name = array->get(i)->as_table()->get("name");
    return Status::InvalidInput(
        fmt::format("{}: [[volume]] key 'name': duplicate volume name '{}'",
                    internal::Position(file, name->source()), volumes[i].name));
  }
  return Status::Ok();
}

void WriteTopology(const Topology& t, TomlWriter* w) {
  w->Table("volume.topology");
  w->StringIfSet("device", t.device);
  w->StringIfSet("dev", t.dev);
  w->StringIfSet("mount_point", t.mount_point);
  w->StringIfSet("disk", t.disk);
  w->StringIfSet("kind", t.kind);
  w->StringIfSet("model", t.model);
  w->StringIfSet("raid_level", t.raid_level);
  w->StringIfSet("dm_target", t.dm_target);
  w->StringListIfSet("members", t.members);
  w->SizeIfSet("chunk", t.chunk);
  w->NumberIfSet("raid_disks", t.raid_disks);
  w->NumberIfSet("degraded", t.degraded);
  w->StringIfSet("sync_action", t.sync_action);
  w->SizeIfSet("partition_start", t.partition_start);
  w->StringListIfSet("warnings", t.warnings);
  w->NumberIfSet("logical_block_size", t.logical_block_size);
  w->NumberIfSet("physical_block_size", t.physical_block_size);
  w->SizeIfSet("minimum_io_size", t.minimum_io_size);
  w->SizeIfSet("optimal_io_size", t.optimal_io_size);
  w->Bool("rotational", t.rotational);
  w->NumberIfSet("nr_requests", t.nr_requests);
  w->NumberIfSet("max_sectors_kb", t.max_sectors_kb);
  w->StringIfSet("write_cache", t.write_cache);
  w->StringIfSet("filesystem", t.filesystem);
  w->StringIfSet("mount_options", t.mount_options);
}

// Latency percentiles come from histogram buckets within 0.78% of the
// value (probes/latency_histogram.h): three significant figures.
constexpr int kPercentileDigits = 3;

void WriteCurves(const Volume& v, TomlWriter* w) {
  for (const RandomReadPoint& p : v.randread) {
    w->ArrayTable("volume.randread");
    w->Number("queue_depth", p.queue_depth);
    w->Measured("iops", p.iops);
    w->MeasuredIfSet("mbps", p.mbps);
    w->Measured("p50_us", p.p50_us, kPercentileDigits);
    w->MeasuredIfSet("p90_us", p.p90_us, kPercentileDigits);
    w->MeasuredIfSet("p99_us", p.p99_us, kPercentileDigits);
    w->MeasuredIfSet("p999_us", p.p999_us, kPercentileDigits);
    w->MeasuredIfSet("max_us", p.max_us);
    w->MeasuredIfSet("cpu_us_per_io", p.cpu_us_per_io);
  }
  for (const PacedReadPoint& p : v.paced_read) {
    w->ArrayTable("volume.paced_read");
    w->Measured("offered_iops", p.offered_iops);
    w->Measured("iops", p.iops);
    w->Measured("mean_us", p.mean_us, kPercentileDigits);
    w->MeasuredIfSet("p50_us", p.p50_us, kPercentileDigits);
    w->MeasuredIfSet("p99_us", p.p99_us, kPercentileDigits);
  }
  for (const SequentialReadPoint& p : v.seqread) {
    w->ArrayTable("volume.seqread");
    w->Size("request_size", p.request_size);
    w->Number("queue_depth", p.queue_depth);
    w->Measured("mbps", p.mbps);
  }
  for (const RandomWritePoint& p : v.randwrite) {
    w->ArrayTable("volume.randwrite");
    w->Number("queue_depth", p.queue_depth);
    w->Measured("iops", p.iops);
    w->MeasuredIfSet("p50_us", p.p50_us, kPercentileDigits);
    w->MeasuredIfSet("p99_us", p.p99_us, kPercentileDigits);
  }
  for (const SyncWritePoint& p : v.syncwrite) {
    w->ArrayTable("volume.syncwrite");
    w->String("method", p.method);
    w->Size("request_size", p.request_size);
    w->Measured("iops", p.iops);
    w->MeasuredIfSet("p50_us", p.p50_us, kPercentileDigits);
    w->MeasuredIfSet("p99_us", p.p99_us, kPercentileDigits);
  }
}

void WriteDurableWrite(std::string_view header, const DurableWrite& d,
                       TomlWriter* w) {
  w->Table(header);
  w->Size("bytes", d.bytes);
  w->Measured("mbps", d.mbps);
  w->Measured("seconds_to_durable", d.seconds_to_durable);
  w->Measured("sync_seconds", d.sync_seconds);
  w->Measured("user_cpu_seconds", d.user_cpu_seconds);
  w->Measured("system_cpu_seconds", d.system_cpu_seconds);
}

void WriteBufferedVsDirect(const BufferedVsDirect& b, TomlWriter* w) {
  WriteDurableWrite("volume.buffered_vs_direct.buffered", b.buffered, w);
  WriteDurableWrite("volume.buffered_vs_direct.direct", b.direct, w);
}

void WriteConcurrent(const Concurrent& c, TomlWriter* w) {
  w->Table("concurrent");
  w->Measured("seconds", c.seconds);
  w->Measured("read_iops", c.read_iops);
  w->Measured("read_mbps", c.read_mbps);
  w->Measured("sum_alone_read_iops", c.sum_alone_read_iops);
  w->Measured("sum_alone_read_mbps", c.sum_alone_read_mbps);
  w->Measured("iops_ratio", c.iops_ratio);
  w->Measured("mbps_ratio", c.mbps_ratio);
  w->StringIfSet("verdict", c.verdict);
  for (const ConcurrentVolume& v : c.volumes) {
    w->ArrayTable("concurrent.volume");
    w->String("name", v.name);
    w->Measured("alone_read_iops", v.alone_read_iops);
    w->Measured("alone_read_mbps", v.alone_read_mbps);
    w->Measured("together_read_iops", v.together_read_iops);
    w->Measured("together_read_mbps", v.together_read_mbps);
  }
}

// The stripe-wide read size, its spread over the sweeps, the full stripe,
// and (a comment, for people: plan judges it again) whether it is trusted.
void WriteStripeRead(const Volume& v, TomlWriter* w) {
  w->SizeIfSet("stripe_read_size", v.stripe_read_size);
  w->SizeIfSet("stripe_read_size_min", v.stripe_read_size_min);
  w->SizeIfSet("stripe_read_size_max", v.stripe_read_size_max);
  w->NumberIfSet("stripe_read_repeats", v.stripe_read_repeats);
  w->SizeIfSet("stripe_width", v.stripe_width);
  if (v.stripe_read_repeats > 0) {
    StripeReadCheck c = CheckStripeReadSize(v);
    w->Comment(fmt::format("stripe_read_size {}: {}",
                           c.trusted ? "trusted" : "not trusted", c.why));
  }
}

void WriteVolume(const Volume& v, TomlWriter* w) {
  w->ArrayTable("volume");
  w->String("name", v.name);
  w->StringIfSet("path", v.path);
  w->MeasuredSize("capacity", v.capacity);
  // A probed volume's figures are measurements, a declared one's are the
  // person's own numbers, kept as written.
  const bool probed = !v.probe_engine.empty();
  auto figure = [&](std::string_view key, double value, int digits = 4) {
    probed ? w->Measured(key, value, digits) : w->Number(key, value);
  };
  auto optional = [&](std::string_view key, double value) {
    probed ? w->MeasuredIfSet(key, value, kPercentileDigits)
           : w->NumberIfSet(key, value);
  };
  figure("read_iops", v.read_iops);
  figure("write_iops", v.write_iops);
  figure("read_mbps", v.read_mbps);
  figure("write_mbps", v.write_mbps);
  figure("read_latency_us", v.read_latency_us, kPercentileDigits);
  figure("sync_write_latency_us", v.sync_write_latency_us, kPercentileDigits);
  w->Number("members", v.members);
  w->SizeIfSet("chunk", v.chunk);
  w->StringIfSet("kind", v.kind);
  w->StringIfSet("iops_budget", v.iops_budget);
  optional("read_latency_p99_us", v.read_latency_p99_us);
  optional("sync_write_latency_p99_us", v.sync_write_latency_p99_us);
  if (v.free_bytes) w->MeasuredSize("free_bytes", v.free_bytes);
  WriteStripeRead(v, w);
  w->NumberIfSet("readers_to_saturate", v.readers_to_saturate);
  w->StringListIfSet("shares_device_with", v.shares_device_with);
  w->StringIfSet("probe_engine", v.probe_engine);
  if (v.topology) WriteTopology(*v.topology, w);
  if (v.buffered_vs_direct) WriteBufferedVsDirect(*v.buffered_vs_direct, w);
  WriteCurves(v, w);
}

}  // namespace

Status ParseVolumes(std::string_view text, const std::string& source_name,
                    VolumeSet* out) {
  toml::table root;
  PGLAYOUT_RETURN_IF_ERROR(internal::ParseToml(text, source_name, &root));
  return internal::VolumesFromToml(root, source_name, out);
}

namespace internal {

Status VolumesFromToml(const toml::table& root, const std::string& source_name,
                       VolumeSet* out) {
  VolumeSet result;
  KeyReader r(root, source_name, "the volumes file");
  if (const toml::table* host = r.Table("host"); host != nullptr) {
    PGLAYOUT_RETURN_IF_ERROR(ReadHost(*host, source_name, &result.host));
  }
  std::vector<const toml::table*> tables = r.Tables("volume");
  if (const toml::table* c = r.Table("concurrent"); c != nullptr) {
    result.concurrent.emplace();
    PGLAYOUT_RETURN_IF_ERROR(
        ReadConcurrent(*c, source_name, &*result.concurrent));
  }
  PGLAYOUT_RETURN_IF_ERROR(r.Finish());
  for (size_t i = 0; i < tables.size(); ++i) {
    result.volumes.emplace_back();
    PGLAYOUT_RETURN_IF_ERROR(
        ReadVolume(*tables[i], source_name, i, &result.volumes.back()));
  }
  if (result.volumes.empty()) {
    return Status::InvalidInput(source_name +
                                ": declares no [[volume]]; a plan needs at "
                                "least one volume");
  }
  PGLAYOUT_RETURN_IF_ERROR(CheckUniqueNames(root, source_name, result.volumes));
  *out = std::move(result);
  return Status::Ok();
}

}  // namespace internal

std::string VolumesToToml(const VolumeSet& volumes) {
  TomlWriter w;
  w.Comment(
      "pglayout volumes: sizes in powers of 1024 (GB = GiB), IOPS of 8 KiB,\n"
      "MB/s of 10^6 bytes, latencies in microseconds.");
  const Host& h = volumes.host;
  w.Table("host");
  w.NumberIfSet("vcpus", h.vcpus);
  if (h.memory > 0) w.MeasuredSize("memory", h.memory);
  w.StringIfSet("instance_type", h.instance_type);
  w.NumberIfSet("bandwidth_cap_mbps", h.bandwidth_cap_mbps);
  w.NumberIfSet("iops_cap", h.iops_cap);
  for (const Volume& v : volumes.volumes) WriteVolume(v, &w);
  if (volumes.concurrent) WriteConcurrent(*volumes.concurrent, &w);
  return w.str();
}

}  // namespace pglayout
