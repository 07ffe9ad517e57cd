#include "observe/observe.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>

#include "common/units.h"
#include "observe/data_locations.h"
#include "observe/device_reads.h"
#include "pg/sql.h"

namespace pglayout {
namespace {

constexpr char kTask[] = "observe";

bool Cancelled(const ObserveOptions& options) {
  return options.cancel != nullptr && options.cancel->load();
}

// "WAL 1.2 MiB/s, 350 commits/s" over the latest interval.
std::string IntervalDetail(const std::vector<Sample>& samples) {
  if (samples.size() < 2) return "first sample taken";
  const ServerCounters& a = samples[samples.size() - 2].server;
  const ServerCounters& b = samples.back().server;
  double dt = b.time - a.time;
  if (dt <= 0) return "";
  return fmt::format("WAL {}/s, {:.0f} commits/s",
                     HumanSize(CounterDelta(a.wal_lsn, b.wal_lsn) / dt),
                     CounterDelta(static_cast<double>(a.commits),
                                  static_cast<double>(b.commits)) /
                         dt);
}

void Report(ProgressSink* progress, int taken, int planned, double elapsed,
            double duration, const std::vector<Sample>& samples) {
  ProgressUpdate u;
  u.task = kTask;
  u.step = fmt::format("sample {}/{}", taken, planned);
  u.fraction = duration > 0 ? std::min(1.0, elapsed / duration) : -1;
  u.elapsed_s = elapsed;
  u.eta_s = std::max(0.0, duration - elapsed);
  u.detail = IntervalDetail(samples);
  progress->Update(u);
}

// Takes the samples: one at the start, then one per interval on a fixed
// schedule (start + k * interval), so slow queries do not stretch it.
Status TakeSamples(StatsSource* source, Clock* clock, ProgressSink* progress,
                   const ObserveOptions& options, std::vector<Sample>* samples,
                   int* skipped) {
  int intervals =
      static_cast<int>(std::floor(options.duration / options.interval + 1e-9));
  double start = clock->Now();
  for (int k = 0; k <= intervals; ++k) {
    if (k > 0) clock->SleepUntil(start + k * options.interval, options.cancel);
    if (Cancelled(options)) break;
    Sample sample;
    bool skip = false;
    Status st = source->ReadSample(&sample, &skip);
    if (!st.ok()) return st.WithContext(fmt::format("sample {}", k + 1));
    if (skip) {
      ++*skipped;
      continue;
    }
    samples->push_back(std::move(sample));
    Report(progress, k + 1, intervals + 1, clock->Now() - start,
           options.duration, *samples);
  }
  if (samples->size() < 2) {
    return Status::Aborted(fmt::format(
        "observation stopped after {} usable sample(s); at least two are "
        "needed",
        samples->size()));
  }
  return Status::Ok();
}

// The tables whose facts matter: the hottest ones, reached through their
// indexes and TOAST too, most heated first, at most |limit|, each
// partition's root after it.
std::vector<const RelationInfo*> HottestTables(
    const std::vector<Relation>& ranked,
    const std::vector<RelationInfo>& relations_read, int limit) {
  std::unordered_map<std::string, const RelationInfo*> by_name;
  for (const RelationInfo& info : relations_read) by_name[info.name] = &info;
  std::vector<const RelationInfo*> out;
  std::set<std::string> seen;
  for (const Relation& r : ranked) {
    if (static_cast<int>(out.size()) >= limit) break;
    if (r.read_iops + r.write_iops <= 0) break;  // the rest are idle
    std::string table =
        r.kind == RelationKind::kTable || r.kind == RelationKind::kPartitioned
            ? r.name
            : r.table;
    auto it = by_name.find(table);
    if (it == by_name.end() || !seen.insert(table).second) continue;
    // A TOAST index leads to its TOAST table, which has no facts.
    if (it->second->kind == RelationKind::kToast) continue;
    out.push_back(it->second);
    // A partition's parent and root have no I/O of their own, but their
    // facts (the parent's key, foreign keys to either) decide whether the
    // partition can be moved or split.
    for (const std::string* up :
         {&it->second->partition_parent, &it->second->partition_of}) {
      auto parent = by_name.find(*up);
      if (parent != by_name.end() && seen.insert(parent->first).second) {
        out.push_back(parent->second);
      }
    }
  }
  return out;
}

Status AddFacts(StatsSource* source,
                const std::vector<RelationInfo>& relations_read, int limit,
                Workload* w) {
  std::unordered_map<std::string, Relation*> by_name;
  for (Relation& r : w->relations) by_name[r.name] = &r;
  for (const RelationInfo* table :
       HottestTables(w->relations, relations_read, limit)) {
    Relation* r = by_name[table->name];
    if (r == nullptr) continue;
    bool partitioned = r->partitioned;
    Status st = source->ReadFacts(*table, r);
    if (!st.ok()) return st.WithContext("facts of " + table->name);
    r->partitioned = r->partitioned || partitioned;
  }
  return Status::Ok();
}

std::string FinishLine(const ObserveResult& r) {
  return fmt::format(
      "{} samples over {}: {} relations, WAL {}/s, {:.0f} commits/s, "
      "checkpoints {} timed / {} requested",
      r.rates.intervals + 1, FormatDuration(std::round(r.rates.duration)),
      r.workload.relations.size(), HumanSize(r.rates.wal_bytes_per_second),
      r.rates.commits_per_second, r.rates.checkpoints.timed,
      r.rates.checkpoints.requested);
}

}  // namespace

Status ValidateObserveOptions(const ObserveOptions& options) {
  if (!(options.interval > 0)) {
    return Status::InvalidInput(
        fmt::format("--interval must be positive, got {}s", options.interval));
  }
  if (options.duration < 2 * options.interval) {
    return Status::InvalidInput(fmt::format(
        "--duration {} is shorter than two intervals of {}: rates need at "
        "least two intervals (three samples); lengthen --duration or shorten "
        "--interval",
        FormatDuration(options.duration), FormatDuration(options.interval)));
  }
  if (options.facts_for < 0 || options.top < 0) {
    return Status::InvalidInput("--facts and --top must not be negative");
  }
  return Status::Ok();
}

Status Observe(StatsSource* source, Clock* clock, ProgressSink* progress,
               const ObserveOptions& options, ObserveResult* result) {
  PGLAYOUT_RETURN_IF_ERROR(ValidateObserveOptions(options));
  ObserveResult out;
  PGLAYOUT_RETURN_IF_ERROR(source->ReadServer(&out.server));
  LocatedDirectories located = LocateServerDirectories(
      options.system_paths, out.server.settings, out.server.tablespaces);
  ObservedData data;
  DeviceReadCounts reads_before =
      ReadDeviceReadCounts(options.system_paths, located.locations);
  double start = clock->Now();
  PGLAYOUT_RETURN_IF_ERROR(TakeSamples(source, clock, progress, options,
                                       &data.samples, &out.skipped_samples));
  double seconds = clock->Now() - start;
  DeviceReadCounts reads_after =
      ReadDeviceReadCounts(options.system_paths, located.locations);
  PGLAYOUT_RETURN_IF_ERROR(source->ReadRelations(&data.reported));
  out.workload.source = "live";
  out.workload.in_recovery = out.server.in_recovery;
  out.workload.settings = out.server.settings;
  out.workload.tablespaces = out.server.tablespaces;
  out.workload.locations = std::move(located.locations);
  out.workload.locations_note = std::move(located.note);
  PGLAYOUT_RETURN_IF_ERROR(
      BuildWorkloadFromSamples(data, &out.workload, &out.rates));
  if (options.count_device_reads) {
    RecordDeviceReads(reads_before, reads_after, seconds, &out.workload);
  }
  PGLAYOUT_RETURN_IF_ERROR(
      AddFacts(source, data.reported, options.facts_for, &out.workload));
  if (options.top > 0 &&
      out.workload.relations.size() > static_cast<size_t>(options.top)) {
    out.workload.relations.resize(options.top);
  }
  PGLAYOUT_RETURN_IF_ERROR(CheckWorkloadText(out.workload));
  progress->Finish(kTask, FinishLine(out));
  *result = std::move(out);
  return Status::Ok();
}

}  // namespace pglayout
