// plan_scale: how long `pglayout plan` takes, and how much memory, on a
// large schema: 10,000 relations (6,000 tables, 4,000 indexes) over 32
// volumes of four kinds, with a skewed (Zipf-like) load so that a few
// tables are too hot for any one volume. Two scenarios: a live server whose
// data sits on 8 of the volumes (24 are new and empty), and a new build.
// The inputs are generated from a fixed seed, written as TOML and parsed
// back, so the timing includes reading the files, planning and rendering
// every output, as the CLI does.
//
// Usage: plan_scale [tables=6000] [indexes=4000] [volumes=32]

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <random>

#include "common/files.h"
#include "common/json.h"
#include "common/median.h"
#include "common/units.h"
#include "planner/plan_builder.h"
#include "planner/plan_sql.h"
#include "planner/plan_text.h"
#include "planner/stripe_script.h"

namespace pglayout {
namespace {

using Clock = std::chrono::steady_clock;

// CPU seconds of this process: the machine is shared, wall time is noisy.
double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec / 1e9;
}

VolumeSet MakeVolumes(int count) {
  struct Kind {
    const char* kind;
    double iops, mbps, latency, fsync;
    uint64_t capacity;
  };
  const Kind kinds[] = {{"aws-ebs-gp3", 16000, 1000, 600, 900, 2 * kTiB},
                        {"aws-ebs-io2", 64000, 2000, 300, 400, 2 * kTiB},
                        {"oci-balanced", 25000, 200, 1000, 1200, kTiB},
                        {"local-nvme", 400000, 3000, 90, 40, 4 * kTiB}};
  VolumeSet vs;
  vs.host = {64, 512 * kGiB, "m6i.16xlarge", 0, 0};
  for (int i = 0; i < count; ++i) {
    const Kind& k = kinds[i % 4];
    Volume v;
    v.name = fmt::format("vol{:02}", i);
    v.path = fmt::format("/mnt/vol{:02}", i);
    v.capacity = k.capacity;
    v.read_iops = v.write_iops = k.iops;
    v.read_mbps = v.write_mbps = k.mbps;
    v.read_latency_us = k.latency;
    v.sync_write_latency_us = k.fsync;
    v.kind = k.kind;
    vs.volumes.push_back(v);
  }
  return vs;
}

Workload MakeWorkload(int tables, int indexes, int volumes, bool live) {
  std::mt19937 rng(20240601);
  std::uniform_real_distribution<double> unit(0, 1);
  Workload w;
  w.source = live ? "live" : "hand";
  w.duration = 3600;
  w.settings = {{"server_version_num", "170002"},
                {"max_wal_size", "1GB"},
                {"checkpoint_timeout", "5min"}};
  if (live) w.settings["data_directory"] = "/mnt/vol00/pgdata";
  w.wal_bytes_per_second = 30e6;  // optional: known
  w.wal_bytes_per_second_peak = 60e6;
  w.commits_per_second = 8000;
  for (int v = 1; live && v < 8; ++v) {
    w.tablespaces.push_back(
        {fmt::format("old{}", v), fmt::format("/mnt/vol{:02}/ts", v)});
  }
  for (int t = 0; t < tables; ++t) {
    Relation r;
    r.name = fmt::format("app.t{:05}", t);
    const double zipf = 1.0 / (1 + t);  // rank-1 tables are the hot ones
    r.size =
        static_cast<uint64_t>((1 + 50 * unit(rng)) * kMiB * (1 + zipf * 200));
    // The hottest table reads 2.5 times its Zipf share, so that it stays
    // too hot for any one volume (and the remedies are timed too).
    const double heat = t == 0 ? 2.5 : 1;
    r.read_iops = 150000 * heat * zipf * (0.5 + unit(rng));
    r.write_iops = 20000 * zipf * (0.5 + unit(rng));
    r.growth_bytes_per_second = 100 * unit(rng);
    r.primary_key = {"id"};
    if (live && t % 8 != 0) r.tablespace = fmt::format("old{}", t % 8);
    w.relations.push_back(r);
  }
  for (int i = 0; i < indexes; ++i) {
    Relation r;
    const int t = i % tables;
    r.name = fmt::format("app.t{:05}_i{}", t, i / tables);
    r.kind = RelationKind::kIndex;
    r.table = fmt::format("app.t{:05}", t);
    r.size = w.relations[t].size / 4;
    r.read_iops = w.relations[t].read_iops / 5;
    r.write_iops = w.relations[t].write_iops / 3;
    w.relations.push_back(r);
  }
  (void)volumes;
  return w;
}

long PeakRssKiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// Writes the inputs as TOML, then reads, plans and renders like the CLI.
Status RunOnce(const std::string& volumes_toml,
               const std::string& workload_toml, double* seconds, double* cpu,
               size_t* output_bytes, planner::PlanOutcome* out) {
  const auto start = Clock::now();
  const double cpu_start = CpuSeconds();
  VolumeSet vs;
  Workload w;
  PGLAYOUT_RETURN_IF_ERROR(ParseVolumes(volumes_toml, "volumes.toml", &vs));
  PGLAYOUT_RETURN_IF_ERROR(ParseWorkload(workload_toml, "workload.toml", &w));
  PGLAYOUT_RETURN_IF_ERROR(planner::BuildPlan(vs, w, {}, out));
  std::vector<planner::SqlStep> steps;
  PGLAYOUT_RETURN_IF_ERROR(
      planner::PlanSqlSteps(out->plan, out->sql_objects, &steps));
  std::string all = PlanToToml(out->plan) + planner::PlanJson(*out).dump(2) +
                    planner::RenderPlanSql(steps) +
                    planner::StripeScript(out->plan, vs, "/mnt/vol00/pgdata") +
                    planner::RenderPlanText(*out);
  *seconds = std::chrono::duration<double>(Clock::now() - start).count();
  *cpu = CpuSeconds() - cpu_start;
  *output_bytes = all.size();
  return Status::Ok();
}

int Scenario(const char* name, int tables, int indexes, int volumes,
             bool live) {
  const std::string volumes_toml = VolumesToToml(MakeVolumes(volumes));
  const std::string workload_toml =
      WorkloadToToml(MakeWorkload(tables, indexes, volumes, live));
  if (const char* dump = std::getenv("PLAN_SCALE_DUMP"); dump != nullptr) {
    // Writes the generated inputs, to run `pglayout plan` on them by hand.
    Status st = WriteTextFile(fmt::format("{}/{}-volumes.toml", dump, name),
                              volumes_toml);
    if (st.ok()) {
      st = WriteTextFile(fmt::format("{}/{}-workload.toml", dump, name),
                         workload_toml);
    }
    if (!st.ok()) fmt::print(stderr, "{}\n", st.ToString());
  }
  std::vector<double> times, cpus;
  planner::PlanOutcome out;
  size_t bytes = 0;
  for (int run = 0; run < 3; ++run) {
    double seconds = 0, cpu = 0;
    Status st =
        RunOnce(volumes_toml, workload_toml, &seconds, &cpu, &bytes, &out);
    if (!st.ok()) {
      fmt::print(stderr, "{}: {}\n", name, st.ToString());
      return 1;
    }
    times.push_back(seconds);
    cpus.push_back(cpu);
  }
  for (const std::string& v : out.plan.verdicts) fmt::print("  {}\n", v);
  fmt::print(
      "{:<10} {} relations, {} volumes: wall median {:.3f} s (min {:.3f}, "
      "max {:.3f}), CPU median {:.3f} s; {} moves, {} hash-partitioned, {} "
      "stripe(s); worst volume {:.0f}% vs bound {:.0f}%; outputs {}\n",
      name, tables + indexes, volumes, Median(times),
      *std::min_element(times.begin(), times.end()),
      *std::max_element(times.begin(), times.end()), Median(cpus), out.moves,
      out.partitioned, out.plan.stripes.size(), out.max_utilization * 100,
      out.bound.max_utilization * 100, HumanSize(static_cast<double>(bytes)));
  return 0;
}

}  // namespace
}  // namespace pglayout

int main(int argc, char** argv) {
  const int tables = argc > 1 ? std::atoi(argv[1]) : 6000;
  const int indexes = argc > 2 ? std::atoi(argv[2]) : 4000;
  const int volumes = argc > 3 ? std::atoi(argv[3]) : 32;
  int rc = pglayout::Scenario("live", tables, indexes, volumes, true);
  rc |= pglayout::Scenario("new-build", tables, indexes, volumes, false);
  fmt::print("peak memory (max RSS of the whole run): {:.1f} MB\n",
             pglayout::PeakRssKiB() / 1024.0);
  return rc;
}
