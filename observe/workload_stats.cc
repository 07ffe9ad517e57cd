#include "observe/workload_stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "common/text.h"
#include "common/units.h"

namespace pglayout {

const char kWriteEstimateMethod[] =
    "estimated from tuple changes, not measured: a table or TOAST relation "
    "dirties its new blocks (size growth, or inserted rows / rows per page "
    "when larger) plus one block per updated or deleted row; an index "
    "dirties its new blocks (growth, or its table's inserted rows / entries "
    "per page) plus one block per non-HOT update of its table; the "
    "one-block-per-row parts are capped at the relation's size in blocks per "
    "interval. A block dirtied again before the next checkpoint is written "
    "once, so update-heavy relations are overestimated.";

double Percentile95(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  double rank = 0.95 * static_cast<double>(values.size() - 1);
  size_t low = static_cast<size_t>(rank);
  size_t high = std::min(low + 1, values.size() - 1);
  double weight = rank - static_cast<double>(low);
  return values[low] + weight * (values[high] - values[low]);
}

double CounterDelta(double before, double now) {
  return now >= before ? now - before : now;
}

namespace {

constexpr double kBlock = static_cast<double>(kPageSize);

// Rows (or index entries) per 8 KiB page from the planner's estimates, or 0
// when the relation was never analysed (reltuples is -1 since PG 14, 0
// before).
double RowsPerPage(const RelationInfo& info) {
  if (info.reltuples <= 0 || info.relpages <= 0) return 0;
  return info.reltuples / info.relpages;
}

// New blocks: the size growth, or |rows| spread over full pages when that
// is larger (inserts into free space left by vacuum do not grow the file).
double NewBlocks(const RelationInfo& info, double growth, double rows) {
  double blocks = std::max(0.0, growth) / kBlock;
  double per_page = RowsPerPage(info);
  if (per_page > 0) blocks = std::max(blocks, rows / per_page);
  return blocks;
}

}  // namespace

double EstimateBlocksWritten(const RelationInfo& info, const IntervalDelta& own,
                             const IntervalDelta* parent, uint64_t size_now) {
  double pages = static_cast<double>(size_now) / kBlock;
  switch (info.kind) {
    case RelationKind::kPartitioned:
      return 0;  // no storage of its own; its partitions are reported
    case RelationKind::kTable:
    case RelationKind::kMaterializedView:
    case RelationKind::kToast:
      return NewBlocks(info, own.size, own.inserted) +
             std::min(pages, own.updated + own.deleted);
    case RelationKind::kIndex: {
      if (parent == nullptr) return NewBlocks(info, own.size, 0);
      double non_hot = std::max(0.0, parent->updated - parent->hot_updated);
      return NewBlocks(info, own.size, parent->inserted) +
             std::min(pages, non_hot);
    }
  }
  return 0;
}

namespace {

IntervalDelta RelationDelta(const RelationCounters* before,
                            const RelationCounters& now) {
  static const RelationCounters kZero;
  const RelationCounters& b = before ? *before : kZero;
  auto d = [](int64_t x, int64_t y) {
    return CounterDelta(static_cast<double>(x), static_cast<double>(y));
  };
  IntervalDelta delta;
  delta.blocks_read = d(b.blocks_read, now.blocks_read);
  delta.blocks_hit = d(b.blocks_hit, now.blocks_hit);
  delta.inserted = d(b.tuples_inserted, now.tuples_inserted);
  delta.updated = d(b.tuples_updated, now.tuples_updated);
  delta.hot_updated = d(b.tuples_hot_updated, now.tuples_hot_updated);
  delta.deleted = d(b.tuples_deleted, now.tuples_deleted);
  delta.size = static_cast<double>(now.size) - static_cast<double>(b.size);
  return delta;
}

const RelationCounters* Find(const Sample& sample, uint32_t oid) {
  auto it = sample.relations.find(oid);
  return it == sample.relations.end() ? nullptr : &it->second;
}

// Per-interval rates of one relation.
struct RateSeries {
  std::vector<double> reads, hits, inserts, updates, deletes, writes;
  double total_reads = 0, total_writes = 0;
};

// Deltas of one relation between sample i-1 and i, or nullopt-like zero
// when the relation is absent from sample i (dropped meanwhile).
bool IntervalOf(const std::vector<Sample>& samples, size_t i, uint32_t oid,
                IntervalDelta* delta, uint64_t* size_now) {
  const RelationCounters* now = Find(samples[i], oid);
  if (now == nullptr) return false;
  *delta = RelationDelta(Find(samples[i - 1], oid), *now);
  *size_now = now->size;
  return true;
}

RateSeries RelationRates(const RelationInfo& info,
                         const std::vector<Sample>& samples) {
  RateSeries s;
  for (size_t i = 1; i < samples.size(); ++i) {
    double dt = samples[i].server.time - samples[i - 1].server.time;
    IntervalDelta own, parent;
    uint64_t size_now = 0, ignored = 0;
    if (!IntervalOf(samples, i, info.oid, &own, &size_now)) own = {};
    bool has_parent = info.kind == RelationKind::kIndex &&
                      info.table_oid != 0 &&
                      IntervalOf(samples, i, info.table_oid, &parent, &ignored);
    double written = EstimateBlocksWritten(
        info, own, has_parent ? &parent : nullptr, size_now);
    s.reads.push_back(own.blocks_read / dt);
    s.hits.push_back(own.blocks_hit / dt);
    s.inserts.push_back(own.inserted / dt);
    s.updates.push_back(own.updated / dt);
    s.deletes.push_back(own.deleted / dt);
    s.writes.push_back(written / dt);
    s.total_reads += own.blocks_read;
    s.total_writes += written;
  }
  return s;
}

uint64_t SizeIn(const Sample& sample, uint32_t oid) {
  const RelationCounters* c = Find(sample, oid);
  return c ? c->size : 0;
}

Relation MakeRelation(const RelationInfo& info, const ObservedData& data,
                      double duration) {
  RateSeries s = RelationRates(info, data.samples);
  Relation r;
  r.name = info.name;
  r.kind = info.kind;
  r.table = info.table;
  r.tablespace = info.tablespace;
  r.size = SizeIn(data.samples.back(), info.oid);
  r.read_iops = Percentile95(s.reads);
  r.write_iops = Percentile95(s.writes);
  r.read_iops_avg = s.total_reads / duration;
  r.write_iops_avg = s.total_writes / duration;
  r.hits_per_second = Percentile95(s.hits);
  r.inserts_per_second = Percentile95(s.inserts);
  r.updates_per_second = Percentile95(s.updates);
  r.deletes_per_second = Percentile95(s.deletes);
  double first = static_cast<double>(SizeIn(data.samples.front(), info.oid));
  r.growth_bytes_per_second = (static_cast<double>(r.size) - first) / duration;
  r.partitioned = info.kind == RelationKind::kPartitioned || info.is_partition;
  r.partition_of = info.partition_of;
  r.partition_parent = info.partition_parent;
  r.persistence = info.persistence;
  return r;
}

void SortHottestFirst(std::vector<Relation>* relations) {
  std::sort(relations->begin(), relations->end(),
            [](const Relation& a, const Relation& b) {
              double ha = a.read_iops + a.write_iops;
              double hb = b.read_iops + b.write_iops;
              if (ha != hb) return ha > hb;
              return a.name < b.name;
            });
}

void AddCheckpointDelta(const CheckpointCounters& b,
                        const CheckpointCounters& n, Checkpoints* sum) {
  auto d = [](double x, double y) { return CounterDelta(x, y); };
  sum->timed += static_cast<int64_t>(d(b.timed, n.timed));
  sum->requested += static_cast<int64_t>(d(b.requested, n.requested));
  sum->write_time_ms += d(b.write_time_ms, n.write_time_ms);
  sum->sync_time_ms += d(b.sync_time_ms, n.sync_time_ms);
  sum->buffers_written +=
      static_cast<int64_t>(d(b.buffers_written, n.buffers_written));
}

using IoKey = std::tuple<std::string, std::string, std::string>;

IoKey KeyOf(const IoCounters& io) {
  return {io.backend_type, io.object, io.context};
}

// Sums pg_stat_io deltas per (backend type, object, context) over all
// intervals, so a reset in the middle costs one interval, not the whole run.
std::map<IoKey, IoCounters> IoDeltas(const std::vector<Sample>& samples) {
  std::map<IoKey, IoCounters> sums;
  for (size_t i = 1; i < samples.size(); ++i) {
    std::map<IoKey, const IoCounters*> before;
    for (const IoCounters& io : samples[i - 1].server.io) {
      before[KeyOf(io)] = &io;
    }
    for (const IoCounters& now : samples[i].server.io) {
      static const IoCounters kZero;
      auto it = before.find(KeyOf(now));
      const IoCounters& b = it == before.end() ? kZero : *it->second;
      IoCounters& sum = sums[KeyOf(now)];
      std::tie(sum.backend_type, sum.object, sum.context) = KeyOf(now);
      sum.reads += CounterDelta(b.reads, now.reads);
      sum.writes += CounterDelta(b.writes, now.writes);
      sum.extends += CounterDelta(b.extends, now.extends);
      sum.hits += CounterDelta(b.hits, now.hits);
      sum.fsyncs += CounterDelta(b.fsyncs, now.fsyncs);
    }
  }
  return sums;
}

void FillIoRates(const std::map<IoKey, IoCounters>& sums, double duration,
                 Workload* w, double* relation_writes) {
  *relation_writes = 0;
  for (const auto& [key, io] : sums) {
    if (io.reads + io.writes + io.extends + io.hits + io.fsyncs == 0) continue;
    IoRate rate;
    std::tie(rate.backend_type, rate.object, rate.context) = key;
    rate.reads_per_second = io.reads / duration;
    rate.writes_per_second = io.writes / duration;
    rate.extends_per_second = io.extends / duration;
    rate.hits_per_second = io.hits / duration;
    rate.fsyncs_per_second = io.fsyncs / duration;
    if (io.object == "relation") *relation_writes += io.writes;
    w->io.push_back(std::move(rate));
  }
}

void FillServerRates(const std::vector<Sample>& samples, double duration,
                     Workload* w, ServerRates* rates) {
  std::vector<double> wal;
  double records = 0, fpi = 0, commits = 0, clean = 0, syncs = 0;
  bool syncs_counted = samples.size() > 1;
  for (size_t i = 1; i < samples.size(); ++i) {
    const ServerCounters& b = samples[i - 1].server;
    const ServerCounters& n = samples[i].server;
    double dt = n.time - b.time;
    wal.push_back(CounterDelta(b.wal_lsn, n.wal_lsn) / dt);
    commits += CounterDelta(static_cast<double>(b.commits),
                            static_cast<double>(n.commits));
    AddCheckpointDelta(b.checkpoints, n.checkpoints, &rates->checkpoints);
    clean += CounterDelta(static_cast<double>(b.buffers_clean),
                          static_cast<double>(n.buffers_clean));
    if (b.wal_syncs < 0 || n.wal_syncs < 0) syncs_counted = false;
    syncs += CounterDelta(static_cast<double>(b.wal_syncs),
                          static_cast<double>(n.wal_syncs));
    if (b.has_wal_stats && n.has_wal_stats) {
      records += CounterDelta(static_cast<double>(b.wal_records),
                              static_cast<double>(n.wal_records));
      fpi += CounterDelta(static_cast<double>(b.wal_fpi),
                          static_cast<double>(n.wal_fpi));
    }
  }
  const ServerCounters& first = samples.front().server;
  const ServerCounters& last = samples.back().server;
  rates->wal_bytes_per_second =
      CounterDelta(first.wal_lsn, last.wal_lsn) / duration;
  rates->wal_bytes_per_second_peak = Percentile95(wal);
  rates->commits_per_second = commits / duration;
  if (syncs_counted) rates->wal_syncs_per_second = syncs / duration;
  rates->buffers_clean = clean;
  if (records > 0) rates->fpi_share = fpi / records;

  double relation_writes = 0;
  FillIoRates(IoDeltas(samples), duration, w, &relation_writes);
  if (!last.io.empty()) {
    rates->measured_blocks_written_per_second = relation_writes / duration;
  } else {
    rates->measured_blocks_written_per_second =
        (static_cast<double>(rates->checkpoints.buffers_written) + clean) /
        duration;
  }
  w->wal_bytes_per_second = rates->wal_bytes_per_second;
  w->wal_bytes_per_second_peak = rates->wal_bytes_per_second_peak;
  w->commits_per_second = rates->commits_per_second;
  if (rates->wal_syncs_per_second >= 0) {
    w->wal_syncs_per_second = rates->wal_syncs_per_second;
  }
  w->checkpoints = rates->checkpoints;
}

// Rates to a thousandth and the duration to a millisecond: the file is
// read by people, and nothing downstream needs fifteen digits.
double Tidy(double v) { return std::round(v * 1000) / 1000; }

void TidyRates(Workload* w) {
  // The samples' own clock jitters by milliseconds: an observation of
  // 2min is written "2min", not "119999ms".
  w->duration = w->duration >= 10 ? std::round(w->duration) : Tidy(w->duration);
  if (w->wal_bytes_per_second) {
    w->wal_bytes_per_second = Tidy(*w->wal_bytes_per_second);
  }
  w->wal_bytes_per_second_peak = Tidy(w->wal_bytes_per_second_peak);
  w->commits_per_second = Tidy(w->commits_per_second);
  if (w->wal_syncs_per_second) {
    w->wal_syncs_per_second = Tidy(*w->wal_syncs_per_second);
  }
  w->checkpoints.write_time_ms = Tidy(w->checkpoints.write_time_ms);
  w->checkpoints.sync_time_ms = Tidy(w->checkpoints.sync_time_ms);
  for (IoRate& io : w->io) {
    for (double* v :
         {&io.reads_per_second, &io.writes_per_second, &io.extends_per_second,
          &io.hits_per_second, &io.fsyncs_per_second}) {
      *v = Tidy(*v);
    }
  }
  for (Relation& r : w->relations) {
    for (double* v :
         {&r.read_iops, &r.write_iops, &r.read_iops_avg, &r.write_iops_avg,
          &r.hits_per_second, &r.inserts_per_second, &r.updates_per_second,
          &r.deletes_per_second, &r.growth_bytes_per_second}) {
      *v = Tidy(*v);
    }
  }
}

Status CheckSamples(const std::vector<Sample>& samples) {
  if (samples.size() < 2) {
    return Status::InvalidInput(fmt::format(
        "an observation needs at least two samples, got {}", samples.size()));
  }
  for (size_t i = 1; i < samples.size(); ++i) {
    if (samples[i].server.time <= samples[i - 1].server.time) {
      return Status::InvalidInput(fmt::format(
          "sample {} is not later than sample {} (server clock "
          "{} then {})",
          i + 1, i, samples[i - 1].server.time, samples[i].server.time));
    }
  }
  return Status::Ok();
}

}  // namespace

Status BuildWorkloadFromSamples(const ObservedData& data, Workload* workload,
                                ServerRates* rates) {
  PGLAYOUT_RETURN_IF_ERROR(CheckSamples(data.samples));
  ServerRates r;
  r.intervals = static_cast<int>(data.samples.size()) - 1;
  r.duration =
      data.samples.back().server.time - data.samples.front().server.time;
  Workload w = *workload;
  w.duration = r.duration;
  w.write_method = kWriteEstimateMethod;
  w.io.clear();
  w.relations.clear();
  for (const RelationInfo& info : data.reported) {
    w.relations.push_back(MakeRelation(info, data, r.duration));
    r.estimated_blocks_written_per_second += w.relations.back().write_iops_avg;
  }
  FillServerRates(data.samples, r.duration, &w, &r);
  TidyRates(&w);
  SortHottestFirst(&w.relations);
  *workload = std::move(w);
  *rates = r;
  return Status::Ok();
}

namespace {

Status NotUtf8(const std::string& what, std::string_view text) {
  return Status::InvalidInput(fmt::format(
      "{} '{}' is not UTF-8 text (an SQL_ASCII database keeps names as raw "
      "bytes); workload files hold UTF-8 only: rename it, or observe a "
      "database whose encoding is UTF8",
      what, DisplayName(text, 200)));
}

bool AllUtf8(const std::vector<std::string>& list) {
  return std::all_of(list.begin(), list.end(),
                     [](const std::string& s) { return IsValidUtf8(s); });
}

Status CheckRelationText(const Relation& r) {
  for (const std::string* s :
       {&r.name, &r.table, &r.tablespace, &r.partition_of, &r.partition_parent,
        &r.partition_key}) {
    if (!IsValidUtf8(*s)) {
      return NotUtf8(s == &r.name ? "relation" : "a name of relation", *s);
    }
  }
  bool lists = AllUtf8(r.primary_key) && AllUtf8(r.foreign_keys_out) &&
               AllUtf8(r.foreign_keys_in) && AllUtf8(r.dependent_views) &&
               AllUtf8(r.triggers) && AllUtf8(r.identity_columns) &&
               AllUtf8(r.publications) && AllUtf8(r.no_inherit_checks) &&
               AllUtf8(r.before_row_triggers) &&
               AllUtf8(r.transition_row_triggers) && AllUtf8(r.row_key);
  for (const auto* keys : {&r.unique_keys, &r.key_constraints,
                           &r.referenced_by_partitioned, &r.column_types}) {
    for (const std::vector<std::string>& key : *keys) {
      lists = lists && AllUtf8(key);
    }
  }
  if (!lists) {
    return NotUtf8("a column, key, view or trigger name of relation", r.name);
  }
  return Status::Ok();
}

}  // namespace

Status CheckWorkloadText(const Workload& workload) {
  for (const Relation& r : workload.relations) {
    PGLAYOUT_RETURN_IF_ERROR(CheckRelationText(r));
  }
  for (const TablespaceInfo& t : workload.tablespaces) {
    if (!IsValidUtf8(t.name)) return NotUtf8("tablespace", t.name);
    if (!IsValidUtf8(t.location))
      return NotUtf8("tablespace location", t.location);
  }
  for (const auto& [name, value] : workload.settings) {
    if (!IsValidUtf8(name)) return NotUtf8("setting", name);
    if (!IsValidUtf8(value))
      return NotUtf8("the value of setting " + name, value);
  }
  for (const DataLocation& l : workload.locations) {
    if (!IsValidUtf8(l.path) || !IsValidUtf8(l.tablespace)) {
      return NotUtf8("data directory path", l.path);
    }
  }
  return Status::Ok();
}

}  // namespace pglayout
