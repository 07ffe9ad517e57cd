// bench/probe_vs_fio: is `pglayout probe` as accurate and as cheap as fio?
//
// On one directory, in one run: create and fill one probe file (the same
// way `pglayout probe` does), then alternate our engine and fio (io_uring,
// O_DIRECT, fixed buffers, registered file) on that very file, three rounds
// of four tests: random 8 KiB reads at depth 1 and 32, sequential 1 MiB reads
// at depth 4, and 8 KiB write + fdatasync at depth 1. Prints, per test,
// both figures and ours/fio for IOPS or MB/s, median latency and CPU per
// I/O, and the median ratio over the rounds.
//
// Usage: probe_vs_fio DIR [--size 1GiB] [--seconds 10] [--rounds 3]
//                         [--fio /usr/bin/fio]
//                         [--only SUBSTRING]

#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/median.h"
#include "common/units.h"
#include "probes/probe_file.h"
#include "probes/prober.h"
#include "probes/thread_pool_engine.h"
#include "probes/uring_engine.h"

namespace pglayout::bench {
namespace {

using probes::Access;
using probes::Durability;
using probes::IoKind;

struct Test {
  std::string label;
  IoKind kind;
  Access access;
  uint64_t block;
  int depth;
  Durability durability;
  const char* fio_rw;
  bool throughput_in_mbps;  // MB/s rather than IOPS
};

struct Figures {
  double rate = 0;           // IOPS or MB/s
  double latency_us = 0;     // median of one I/O; mean of a write+fdatasync
  double cpu_us_per_io = 0;  // whole process, all threads
  double fio_thread_cpu_us_per_io = 0;  // what fio itself reports
};

struct Options {
  std::string dir;
  uint64_t size = 1 * kGiB;
  double seconds = 10;
  int rounds = 3;
  std::string fio = "fio";
  std::string only;      // run only the tests whose label contains this
  bool threads = false;  // our thread-pool engine instead of io_uring
};

constexpr uint64_t kWalRegion = 16 * kMiB;
constexpr double kRampSeconds = 1;

std::vector<Test> Tests() {
  return {
      {"randread 8KiB qd1", IoKind::kRead, Access::kRandom, kPageSize, 1,
       Durability::kNone, "randread", false},
      {"randread 8KiB qd32", IoKind::kRead, Access::kRandom, kPageSize, 32,
       Durability::kNone, "randread", false},
      {"seqread 1MiB qd4", IoKind::kRead, Access::kSequential, 1 * kMiB, 4,
       Durability::kNone, "read", true},
      {"write 8KiB+fdatasync qd1", IoKind::kWrite, Access::kSequential,
       kPageSize, 1, Durability::kFdatasyncEach, "write", false},
  };
}

Status RunOurs(probes::IoEngine* engine, const Test& t, uint64_t filled,
               const Options& o, Figures* f) {
  probes::IoJob job;
  job.kind = t.kind;
  job.access = t.access;
  job.block_size = t.block;
  job.queue_depth = t.depth;
  job.durability = t.durability;
  job.region_size = t.kind == IoKind::kWrite ? kWalRegion : filled;
  job.interval_seconds = 0.1;
  // Same shape as fio's: a ramp, then a fixed time (no early stop).
  probes::PointLimits limits{kRampSeconds, o.seconds, o.seconds, 0, 1000000};
  probes::PointResult r;
  PGLAYOUT_RETURN_IF_ERROR(
      probes::MeasurePoint(engine, job, limits, nullptr, &r));
  f->rate = t.throughput_in_mbps ? r.mbps() : r.iops();
  const probes::LatencyHistogram& h = r.stats.latency;
  f->latency_us =
      (t.durability == Durability::kFdatasyncEach ? h.mean_ns()
                                                  : h.Percentile(0.5)) /
      1000;
  f->cpu_us_per_io = r.cpu_us_per_io();
  return Status::Ok();
}

// Runs a program and captures its stdout; *cpu_seconds is the user + sys
// CPU of the whole child process, all its threads (io_uring workers too).
Status Capture(const std::vector<std::string>& argv, std::string* out,
               double* cpu_seconds) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return Status::FromErrno("pipe", errno);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(pipe_fds[1], 1);
    close(pipe_fds[0]);
    std::vector<char*> args;
    for (const std::string& a : argv)
      args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  char buf[65536];
  ssize_t n;
  while ((n = read(pipe_fds[0], buf, sizeof(buf))) > 0)
    out->append(buf, static_cast<size_t>(n));
  close(pipe_fds[0]);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  auto seconds = [](const timeval& tv) { return tv.tv_sec + tv.tv_usec / 1e6; };
  *cpu_seconds = seconds(usage.ru_utime) + seconds(usage.ru_stime);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return Status::IoError(
        fmt::format("{} failed (status {})", argv[0], status));
  }
  return Status::Ok();
}

double Percentile50(const nlohmann::json& lat) {
  const nlohmann::json& p = lat["percentile"];
  return p.contains("50.000000") ? p["50.000000"].get<double>() / 1000 : 0;
}

Status RunFio(const std::string& path, const Test& t, uint64_t filled,
              const Options& o, Figures* f) {
  uint64_t size = t.kind == IoKind::kWrite ? kWalRegion : filled;
  std::vector<std::string> argv = {o.fio,
                                   "--name=bench",
                                   "--filename=" + path,
                                   "--ioengine=io_uring",
                                   "--direct=1",
                                   "--fixedbufs=1",
                                   "--registerfiles=1",
                                   "--allow_file_create=0",
                                   fmt::format("--rw={}", t.fio_rw),
                                   fmt::format("--bs={}", t.block),
                                   fmt::format("--iodepth={}", t.depth),
                                   fmt::format("--size={}", size),
                                   "--time_based",
                                   fmt::format("--runtime={}", o.seconds),
                                   fmt::format("--ramp_time={}", kRampSeconds),
                                   "--randrepeat=0",
                                   "--norandommap",
                                   "--lat_percentiles=1",
                                   "--output-format=json"};
  if (t.durability == Durability::kFdatasyncEach)
    argv.push_back("--fdatasync=1");
  std::string out;
  double process_cpu = 0;
  PGLAYOUT_RETURN_IF_ERROR(Capture(argv, &out, &process_cpu));
  size_t brace = out.find('{');
  if (brace == std::string::npos) return Status::IoError("fio printed no JSON");
  nlohmann::json j = nlohmann::json::parse(out.substr(brace), nullptr, false);
  if (j.is_discarded()) return Status::IoError("fio printed malformed JSON");
  const nlohmann::json& job = j["jobs"][0];
  const nlohmann::json& dir = job[t.kind == IoKind::kRead ? "read" : "write"];
  double ios = dir["total_ios"].get<double>();
  double runtime_s = job["job_runtime"].get<double>() / 1000;
  f->rate = t.throughput_in_mbps ? dir["bw_bytes"].get<double>() / 1e6
                                 : dir["iops"].get<double>();
  if (t.durability == Durability::kFdatasyncEach) {
    // fio times the write and the fdatasync apart and gives the sync no
    // percentiles; a commit waits for both, so compare means here.
    f->latency_us = (dir["lat_ns"]["mean"].get<double>() +
                     job["sync"]["lat_ns"]["mean"].get<double>()) /
                    1000;
  } else {
    f->latency_us = Percentile50(dir["lat_ns"]);
  }
  // fio's own figure counts its job thread only (RUSAGE_THREAD); ours counts
  // the whole process. For a like-for-like ratio take fio's whole process
  // too, spreading it over the I/Os of the ramp as well (same rate assumed).
  double cpu_share =
      (job["usr_cpu"].get<double>() + job["sys_cpu"].get<double>()) / 100;
  f->fio_thread_cpu_us_per_io = ios > 0 ? cpu_share * runtime_s * 1e6 / ios : 0;
  double all_ios = ios * (runtime_s + kRampSeconds) / runtime_s;
  f->cpu_us_per_io = all_ios > 0 ? process_cpu * 1e6 / all_ios : 0;
  return Status::Ok();
}

void PrintRow(const std::string& test, const std::string& metric, double ours,
              double fio) {
  std::printf("%-26s %-10s %12.1f %12.1f %7.3f\n", test.c_str(), metric.c_str(),
              ours, fio, fio > 0 ? ours / fio : 0);
}

Status Main(const Options& o) {
  std::unique_ptr<probes::ProbeFile> file;
  PGLAYOUT_RETURN_IF_ERROR(probes::ProbeFile::Create(o.dir, o.size, &file));
  std::unique_ptr<probes::IoEngine> engine;
  if (o.threads) {
    engine = probes::MakeThreadPoolEngine(file->fd(), file->alignment());
  } else {
    PGLAYOUT_RETURN_IF_ERROR(
        probes::MakeUringEngine(file->fd(), file->alignment(), &engine));
  }
  uint64_t filled = 0;
  double mbps = 0, seconds = 0;
  PGLAYOUT_RETURN_IF_ERROR(probes::FillProbeFile(
      engine.get(), o.size, 600, nullptr, &filled, &mbps, &seconds));
  std::printf(
      "probe file %s: %s filled at %.0f MB/s (durable); %d rounds of %.0f s + "
      "%.0f s "
      "ramp per run\n\n",
      file->path().c_str(), HumanSize(static_cast<double>(filled)).c_str(),
      mbps, o.rounds, o.seconds, kRampSeconds);
  std::vector<Test> tests = Tests();
  std::erase_if(tests, [&](const Test& t) {
    return t.label.find(o.only) == std::string::npos;
  });
  // ratios[test][metric] over rounds
  std::map<std::string, std::map<std::string, std::vector<double>>> ratios;
  std::printf("%-26s %-10s %12s %12s %7s\n", "test", "metric", "pglayout",
              "fio", "ratio");
  for (int round = 1; round <= o.rounds; ++round) {
    std::printf("-- round %d\n", round);
    for (const Test& t : tests) {
      Figures ours, fio;
      // Who goes first alternates, so a device that warms up (or tires)
      // over a run does not favour one side.
      bool ours_first = round % 2 == 1;
      for (int turn = 0; turn < 2; ++turn) {
        if ((turn == 0) == ours_first) {
          PGLAYOUT_RETURN_IF_ERROR(
              RunOurs(engine.get(), t, filled, o, &ours).WithContext(t.label));
        } else {
          PGLAYOUT_RETURN_IF_ERROR(
              RunFio(file->path(), t, filled, o, &fio).WithContext(t.label));
        }
      }
      const char* rate = t.throughput_in_mbps ? "MB/s" : "IOPS";
      PrintRow(t.label, rate, ours.rate, fio.rate);
      bool mean = t.durability == Durability::kFdatasyncEach;
      PrintRow("", mean ? "mean us" : "p50 us", ours.latency_us,
               fio.latency_us);
      PrintRow("", "CPU us/IO", ours.cpu_us_per_io, fio.cpu_us_per_io);
      std::printf("%-26s %-10s %12s %12.1f   (fio's own, job thread only)\n",
                  "", "", "", fio.fio_thread_cpu_us_per_io);
      ratios[t.label]["rate"].push_back(ours.rate / fio.rate);
      ratios[t.label]["p50"].push_back(ours.latency_us / fio.latency_us);
      ratios[t.label]["cpu"].push_back(ours.cpu_us_per_io / fio.cpu_us_per_io);
      std::fflush(stdout);
    }
  }
  std::printf(
      "\nmedian ratio pglayout/fio over %d rounds (targets: rate 0.9-1.1, "
      "latency "
      "0.85-1.15, CPU <= 1.1)\n",
      o.rounds);
  std::printf("%-26s %8s %8s %8s\n", "test", "rate", "latency", "CPU/IO");
  for (const Test& t : tests) {
    auto& r = ratios[t.label];
    std::printf("%-26s %8.3f %8.3f %8.3f\n", t.label.c_str(), Median(r["rate"]),
                Median(r["p50"]), Median(r["cpu"]));
  }
  return Status::Ok();
}

}  // namespace
}  // namespace pglayout::bench

int main(int argc, char** argv) {
  pglayout::bench::Options o;
  if (argc < 2) {
    std::fprintf(
        stderr,
        "usage: probe_vs_fio DIR [--size 1GiB] [--seconds 10] [--rounds 3] "
        "[--fio PATH] [--only SUBSTRING]\n");
    return 2;
  }
  o.dir = argv[1];
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string flag = argv[i], value = argv[i + 1];
    pglayout::Status st;
    if (flag == "--size") {
      st = pglayout::ParseSize(value, &o.size);
    } else if (flag == "--seconds") {
      st = pglayout::ParseDuration(value, &o.seconds);
    } else if (flag == "--rounds") {
      o.rounds = std::max(1, std::atoi(value.c_str()));
    } else if (flag == "--engine") {
      o.threads = value == "threads";
    } else if (flag == "--only") {
      o.only = value;
    } else if (flag == "--fio") {
      o.fio = value;
    } else {
      st = pglayout::Status::InvalidInput("unknown option " + flag);
    }
    if (!st.ok()) {
      std::fprintf(stderr, "%s\n", st.message().c_str());
      return 2;
    }
  }
  pglayout::probes::TargetInfo info;
  pglayout::Status st = pglayout::probes::InspectTarget(o.dir, &info);
  if (st.ok()) st = pglayout::probes::CheckSpace(info, o.size);
  if (st.ok()) st = pglayout::bench::Main(o);
  if (!st.ok()) {
    std::fprintf(stderr, "probe_vs_fio: %s\n", st.message().c_str());
    return st.IsInvalidInput() ? 2 : 1;
  }
  return 0;
}
