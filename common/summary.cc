#include "common/summary.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "common/units.h"

namespace pglayout {
namespace {

std::string HostLine(const Host& h) {
  std::string line = "host:";
  if (h.instance_type.empty() && h.vcpus == 0 && h.memory == 0) {
    return line + " not described";
  }
  if (!h.instance_type.empty()) line += " " + h.instance_type;
  if (h.vcpus > 0) line += fmt::format(" {} vCPUs", h.vcpus);
  if (h.memory > 0) line += " " + HumanSize(static_cast<double>(h.memory));
  return line;
}

std::string VolumeLine(const Volume& v) {
  std::string line = fmt::format(
      "  {:<12} {:>10}  read {:>8.0f} IOPS {:>7.0f} MB/s {:>7.0f} us  "
      "write {:>8.0f} IOPS  fsync {:>7.0f} us",
      v.name, HumanSize(static_cast<double>(v.capacity)), v.read_iops,
      v.read_mbps, v.read_latency_us, v.write_iops, v.sync_write_latency_us);
  if (v.members > 1) {
    line += fmt::format("  stripe {}x{}", v.members,
                        HumanSize(static_cast<double>(v.chunk)));
  }
  if (!v.randread.empty()) line += "  (probed)";
  return line;
}

}  // namespace

std::string Summarize(const VolumeSet& volumes) {
  std::string out = fmt::format("{} volume(s); {}\n", volumes.volumes.size(),
                                HostLine(volumes.host));
  for (const Volume& v : volumes.volumes) out += VolumeLine(v) + "\n";
  return out;
}

std::string Summarize(const Workload& w) {
  std::string out = fmt::format(
      "{} relation(s), {} tablespace(s); WAL {}; checkpoints {} timed, {} "
      "requested\n",
      w.relations.size(), w.tablespaces.size(),
      w.wal_bytes_per_second ? HumanSize(*w.wal_bytes_per_second) + "/s"
                             : std::string("rate unknown"),
      w.checkpoints.timed, w.checkpoints.requested);
  std::vector<const Relation*> hottest;
  for (const Relation& r : w.relations) hottest.push_back(&r);
  std::stable_sort(
      hottest.begin(), hottest.end(), [](const Relation* a, const Relation* b) {
        return a->read_iops + a->write_iops > b->read_iops + b->write_iops;
      });
  if (hottest.size() > 5) hottest.resize(5);
  for (const Relation* r : hottest) {
    out += fmt::format(
        "  {:<40} {:<6} {:>10}  read {:>8.1f}/s  write {:>8.1f}/s\n", r->name,
        RelationKindName(r->kind), HumanSize(static_cast<double>(r->size)),
        r->read_iops, r->write_iops);
  }
  return out;
}

std::string Summarize(const Plan& plan) {
  int moves = 0, partitions = 0, stays = 0;
  for (const Placement& p : plan.placements) {
    if (p.strategy == Strategy::kMove) ++moves;
    if (p.strategy == Strategy::kHashPartition) ++partitions;
    if (p.strategy == Strategy::kStay) ++stays;
  }
  std::string out = fmt::format(
      "{} tablespace(s); {} move(s), {} hash partitioning(s), {} stay(s); {} "
      "setting(s); {} stripe(s)\n",
      plan.tablespaces.size(), moves, partitions, stays, plan.settings.size(),
      plan.stripes.size());
  if (!plan.wal_volume.empty()) {
    out += fmt::format("  WAL on volume {}\n", plan.wal_volume);
  }
  for (const Placement& p : plan.placements) {
    out +=
        fmt::format("  {:<40} {:<15} {}\n", p.relation,
                    StrategyName(p.strategy), fmt::join(p.tablespaces, ", "));
  }
  return out;
}

}  // namespace pglayout
