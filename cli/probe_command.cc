// pglayout probe [NAME=]DIR...: measure each volume through a temporary
// file in DIR with direct I/O and write volumes.toml.

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "cli/command.h"
#include "cli/help_format.h"
#include "common/files.h"
#include "common/json.h"
#include "common/stripe_read.h"
#include "common/units.h"
#include "probes/concurrent.h"
#include "probes/probe_file.h"
#include "probes/prober.h"
#include "probes/thread_pool_engine.h"
#include "probes/topology.h"
#include "probes/uring_engine.h"
#include "probes/write_paths.h"

namespace pglayout::cli {
namespace {

using probes::ProbeFile;
using probes::ProbeResult;
using probes::TargetInfo;

constexpr char kFooter[] = R"(
Each target is a directory on a mounted volume, optionally named (wal=/mnt/wal;
the default name is the directory's last component). The probe writes one
temporary file there (.pglayout-probe-*.tmp), fills it with incompressible data,
measures, and removes it, also on Ctrl-C. It never writes to a device and leaves
at least 10% of the filesystem free.

All I/O is O_DIRECT through io_uring (a pread/pwrite thread pool if io_uring is
unavailable; the output says which), so the page cache is bypassed and the file
need not be larger than RAM: 1 GiB is enough for most volumes; use a larger
--size on arrays with big controller caches.

Time per volume: at most 90 s (--quick: 20 s). Points stop early once their
IOPS are known to +/-2% (95% confidence; +/-3.5% with --quick, whose points are
a third as long). Around every point the device's counters (/proc/diskstats)
are read: a point during which the device served I/O the probe did not issue is
measured again, and if the other job is still there the output names the points
whose figures it lowered.

--compare-buffered then rewrites the probe file twice, each until durable: with
write() through the page cache then fdatasync + close, and with O_DIRECT then
fdatasync (at most 30 s each, 10 s with --quick). It reports amortised MB/s,
time to durability and user + system CPU of both. The buffered pages are dropped
from the page cache afterwards (posix_fadvise DONTNEED). Kernel flusher threads
are not charged to any process, so buffered CPU is understated.

--concurrent keeps every probe file until all targets are probed, then runs one
read mix (random 8 KiB reads at the volume's knee depth plus sequential 1 MiB
reads at depth 4) on each volume alone and then on all at once (3 s each, 1 s
with --quick): together well below the sum of alone exposes volumes that share
a device, a controller or an instance bandwidth cap. The probe files then exist
at the same time, so each filesystem needs room for all of its targets' files.)";

struct Target {
  std::string name;
  std::string dir;
  TargetInfo info;
  Topology topology;
};

// A target's probe file and engine, kept alive for --concurrent.
struct Session {
  std::unique_ptr<ProbeFile> file;
  std::unique_ptr<probes::IoEngine> engine;
  uint64_t filled_bytes = 0;
  int knee_depth = 1;
};

class ProbeCommand : public Command {
 public:
  void Configure(CLI::App* app) override {
    app->add_option("targets", targets_, "[NAME=]DIR of each volume to probe")
        ->type_name("[NAME=]DIR...")
        ->required();
    app->add_flag("--quick", quick_, "Shorter probe: at most 20 s per volume")
        ->group(kGroupAction);
    app->add_option("--size", size_text_,
                    "Probe file size per volume (default 1GiB)")
        ->type_name("SIZE")
        ->group(kGroupAction);
    app->add_flag("--compare-buffered", compare_buffered_,
                  "Also time a buffered and a direct sequential write of the "
                  "probe file, each until durable")
        ->group(kGroupAction);
    app->add_flag("--concurrent", concurrent_,
                  "Then read from every target at once: do they share "
                  "hardware?")
        ->group(kGroupAction);
    app->add_option("--engine", engine_,
                    "The I/O engine (default auto: io_uring, else threads)")
        ->type_name("auto|io_uring|threads")
        ->group(kGroupAction)
        ->check(CLI::IsMember({"auto", "io_uring", "threads"}));
    app->add_option("-o,--output", output_,
                    "Where to write the volumes (default volumes.toml)")
        ->type_name("FILE")
        ->group(kGroupOutput);
    app->add_flag("--json", json_, "Print the results as JSON on stdout")
        ->group(kGroupOutput);
    app->add_option("--sysfs-root", paths_.sysfs_root,
                    "Where sysfs is mounted (for tests)")
        ->group("");
    app->add_option("--mountinfo", paths_.mountinfo,
                    "The mountinfo file to read (for tests)")
        ->group("");
    app->add_option("--budget", budget_seconds_,
                    "Seconds per volume instead of 90 / 20 (for tests)")
        ->group("");
    app->footer(kFooter);
  }

  Status Run(const CommandContext& context) override {
    uint64_t size = 0;
    Status parsed = ParseSize(size_text_, &size);
    if (!parsed.ok()) return UsageError("--size: " + parsed.message());
    if (size < probes::kMinProbeFileSize) {
      return UsageError(fmt::format(
          "--size {} is below the minimum of {}", size_text_,
          HumanSize(static_cast<double>(probes::kMinProbeFileSize))));
    }
    std::vector<Target> targets;
    // Every target is checked before any is written to.
    PGLAYOUT_RETURN_IF_ERROR(ParseTargets(size, &targets));
    VolumeSet result;
    result.host = probes::DiscoverHost(paths_);
    std::vector<Session> sessions;
    for (Target& t : targets) {
      Volume v;
      Session session;
      PGLAYOUT_RETURN_IF_ERROR(ProbeOne(t, size, context, &v, &session));
      if (compare_buffered_) {
        PGLAYOUT_RETURN_IF_ERROR(CompareBuffered(t, size, session, &v));
      }
      WarnIfArrayChanged(t, &v);
      result.volumes.push_back(std::move(v));
      // Without --concurrent the probe file goes now, with its session.
      if (concurrent_) sessions.push_back(std::move(session));
    }
    MarkSharedDevices(targets, &result);
    if (concurrent_) {
      PGLAYOUT_RETURN_IF_ERROR(
          RunConcurrent(targets, sessions, context, &result));
    }
    PGLAYOUT_RETURN_IF_ERROR(WriteTextFile(output_, VolumesToToml(result)));
    if (json_) {
      std::cout << JsonText(ToJson(result)) << "\n";
    } else {
      PrintTables(result);
      std::cout << fmt::format("wrote {}\n", output_);
    }
    return Status::Ok();
  }

 private:
  Status ParseTargets(uint64_t size, std::vector<Target>* out) {
    std::set<std::string> names;
    for (const std::string& spec : targets_) {
      Target t;
      size_t eq = spec.find('=');
      t.dir = eq == std::string::npos ? spec : spec.substr(eq + 1);
      t.name =
          eq == std::string::npos ? DefaultName(t.dir) : spec.substr(0, eq);
      if (t.name.empty() || t.dir.empty()) {
        return Status::InvalidInput(
            fmt::format("target '{}': expected NAME=DIR or DIR", spec));
      }
      if (!names.insert(t.name).second) {
        return Status::InvalidInput(fmt::format(
            "target '{}': the name '{}' is used twice; name them (wal=DIR)",
            spec, t.name));
      }
      PGLAYOUT_RETURN_IF_ERROR(probes::InspectTarget(t.dir, &t.info));
      PGLAYOUT_RETURN_IF_ERROR(probes::CheckSpace(t.info, size));
      PGLAYOUT_RETURN_IF_ERROR(probes::DiscoverTopology(
          paths_, t.info.device, t.info.path, &t.topology));
      out->push_back(std::move(t));
    }
    return concurrent_ ? CheckConcurrentSpace(*out, size) : Status::Ok();
  }

  // With --concurrent every probe file exists at once: a filesystem holding
  // several targets must have room for all of their files.
  Status CheckConcurrentSpace(const std::vector<Target>& targets,
                              uint64_t size) {
    if (targets.size() < 2) {
      return UsageError(
          "--concurrent needs at least two targets to run together");
    }
    std::map<dev_t, uint64_t> per_filesystem;
    for (const Target& t : targets) per_filesystem[t.info.device] += size;
    for (const Target& t : targets) {
      PGLAYOUT_RETURN_IF_ERROR(
          probes::CheckSpace(t.info, per_filesystem[t.info.device])
              .WithContext(
                  "--concurrent keeps every probe file until the end"));
    }
    return Status::Ok();
  }

  static std::string DefaultName(const std::string& dir) {
    std::string d = dir;
    while (d.size() > 1 && d.back() == '/') d.pop_back();
    size_t slash = d.rfind('/');
    std::string base = slash == std::string::npos ? d : d.substr(slash + 1);
    return base.empty() ? "root" : base;
  }

  Status MakeEngine(const ProbeFile& file,
                    std::unique_ptr<probes::IoEngine>* engine) {
    if (engine_ == "threads") {
      *engine = probes::MakeThreadPoolEngine(file.fd(), file.alignment());
      return Status::Ok();
    }
    Status st = probes::MakeUringEngine(file.fd(), file.alignment(), engine);
    if (st.ok() || engine_ == "io_uring") return st;
    spdlog::warn(
        "{}; falling back to a pread/pwrite thread pool (more CPU per "
        "I/O, slightly higher latencies)",
        st.message());
    *engine = probes::MakeThreadPoolEngine(file.fd(), file.alignment());
    return Status::Ok();
  }

  Status ProbeOne(const Target& t, uint64_t size, const CommandContext& context,
                  Volume* v, Session* session) {
    spdlog::info(
        "probing {} at {} ({} {}, {}), probe file {}", t.name, t.info.path,
        t.topology.kind.empty() ? "unknown" : t.topology.kind,
        t.topology.device.empty() ? "no block device" : t.topology.device,
        t.topology.filesystem, HumanSize(static_cast<double>(size)));
    for (const std::string& w : t.topology.warnings) {
      spdlog::warn("{}: {}", t.name, w);
    }
    PGLAYOUT_RETURN_IF_ERROR(
        ProbeFile::Create(t.info.path, size, &session->file)
            .WithContext(t.name));
    PGLAYOUT_RETURN_IF_ERROR(MakeEngine(*session->file, &session->engine));
    probes::ProbeOptions options;
    options.file_size = size;
    options.quick = quick_;
    options.budget_seconds = budget_seconds_;
    options.task = "probe " + t.name;
    // The whole disk's counters: a job on another partition of it competes
    // for the same device (probes/device_counters.h).
    const std::string counted =
        t.topology.disk.empty() ? t.topology.device : t.topology.disk;
    std::optional<probes::DiskstatsCounters> counters;
    if (!counted.empty()) options.counters = &counters.emplace(counted);
    ProbeResult report;
    Status st = probes::RunProbe(session->engine.get(), options,
                                 context.progress, &report);
    if (!st.ok())
      return st.WithContext(fmt::format("probe {} ({})", t.name, t.info.path));
    v->name = t.name;
    v->path = t.info.path;
    v->capacity = t.info.capacity;
    v->free_bytes = t.info.free_bytes;
    v->topology = t.topology;
    probes::ApplyTopology(t.topology, v);
    probes::ApplyProbeResult(report, v);
    session->filled_bytes = report.filled_bytes;
    session->knee_depth = std::max(1, v->readers_to_saturate);
    for (const std::string& note : report.notes)
      spdlog::warn("{}: {}", t.name, note);
    return Status::Ok();
  }

  // A resync starting or a member dropping out while |t| was probed
  // spoils its figures: its topology says so.
  void WarnIfArrayChanged(const Target& t, Volume* v) {
    Topology& topology = *v->topology;
    size_t known = topology.warnings.size();
    probes::RecheckArrayHealth(paths_, t.info.device, &topology);
    for (size_t i = known; i < topology.warnings.size(); ++i) {
      spdlog::warn("{}: {}", t.name, topology.warnings[i]);
    }
  }

  // --compare-buffered on the filled probe file of |t|.
  Status CompareBuffered(const Target& t, uint64_t size, const Session& session,
                         Volume* v) {
    spdlog::info(
        "{}: buffered vs direct sequential write of {}, each until durable",
        t.name, HumanSize(static_cast<double>(size)));
    double cap =
        quick_ ? probes::kCompareQuickSeconds : probes::kCompareFullSeconds;
    BufferedVsDirect compared;
    Status st = probes::CompareBufferedAndDirect(
        session.engine.get(), session.file->path(), session.filled_bytes, cap,
        &compared);
    if (!st.ok()) return st.WithContext(t.name + " --compare-buffered");
    v->buffered_vs_direct = compared;
    return Status::Ok();
  }

  Status RunConcurrent(const std::vector<Target>& targets,
                       const std::vector<Session>& sessions,
                       const CommandContext& context, VolumeSet* set) {
    std::vector<probes::ConcurrentTarget> together;
    for (size_t i = 0; i < targets.size(); ++i) {
      probes::ConcurrentTarget c;
      c.name = targets[i].name;
      c.engine = sessions[i].engine.get();
      c.region_size = sessions[i].filled_bytes;
      c.knee_depth = sessions[i].knee_depth;
      c.disks = probes::PhysicalDisks(targets[i].topology);
      if (c.disks.empty()) {
        // No block device (tmpfs, overlay): st_dev still tells when two
        // targets are on one filesystem.
        c.disks.push_back(fmt::format("{}:{}", major(targets[i].info.device),
                                      minor(targets[i].info.device)));
      }
      together.push_back(std::move(c));
    }
    probes::ConcurrentOptions options;
    options.warmup_seconds = quick_ ? 0.2 : 0.5;
    options.seconds = quick_ ? 1 : 3;
    Concurrent result;
    PGLAYOUT_RETURN_IF_ERROR(
        probes::RunConcurrent(together, options, context.progress, &result)
            .WithContext("--concurrent"));
    set->concurrent = std::move(result);
    return Status::Ok();
  }

  // Two targets on one filesystem, or on filesystems sharing a physical
  // disk, are not independent volumes: say so on both.
  static void MarkSharedDevices(const std::vector<Target>& targets,
                                VolumeSet* set) {
    for (size_t i = 0; i < targets.size(); ++i) {
      std::vector<std::string> a = probes::PhysicalDisks(targets[i].topology);
      for (size_t j = 0; j < targets.size(); ++j) {
        if (i == j) continue;
        std::vector<std::string> b = probes::PhysicalDisks(targets[j].topology);
        bool shared = targets[i].info.device == targets[j].info.device;
        for (const std::string& disk : a) {
          shared = shared || std::find(b.begin(), b.end(), disk) != b.end();
        }
        if (shared)
          set->volumes[i].shares_device_with.push_back(targets[j].name);
      }
    }
  }

  // The paced points: latency against offered load below the cap.
  static void PrintPacedReads(const Volume& v) {
    if (v.paced_read.empty()) return;
    std::cout << "  random 8 KiB reads, paced (open loop)\n    offered/s  "
                 "load    done/s  mean us   p50 us   p99 us\n";
    for (const PacedReadPoint& p : v.paced_read) {
      std::cout << fmt::format(
          "  {:>11.0f} {:>4.0f}% {:>9.0f} {:>8.1f} {:>8.1f} {:>8.1f}\n",
          p.offered_iops,
          v.read_iops > 0 ? 100 * p.offered_iops / v.read_iops : 0, p.iops,
          p.mean_us, p.p50_us, p.p99_us);
    }
  }

  static void PrintVolume(const Volume& v) {
    const Topology& t = *v.topology;
    std::cout << fmt::format(
        "\n{} ({}): {} {}, {} | {} of {} free | engine {}\n", v.name, v.path,
        v.kind.empty() ? "unknown" : v.kind,
        t.device.empty() ? "no block device" : t.device, t.filesystem,
        HumanSize(static_cast<double>(v.free_bytes)),
        HumanSize(static_cast<double>(v.capacity)), v.probe_engine);
    if (v.members > 1) {
      std::cout << fmt::format("  striped: {} members, chunk {}\n", v.members,
                               HumanSize(static_cast<double>(v.chunk)));
    }
    for (const std::string& w : t.warnings) {
      std::cout << fmt::format("  WARNING: {}\n", w);
    }
    std::cout << "  random 8 KiB reads\n    qd       IOPS     MB/s   p50 us   "
                 "p99 us  p99.9 us  CPU us/IO\n";
    for (const RandomReadPoint& p : v.randread) {
      std::cout << fmt::format(
          "  {:>4} {:>10.0f} {:>8.1f} {:>8.1f} {:>8.1f} {:>9.1f} {:>10.2f}{}\n",
          p.queue_depth, p.iops, p.mbps, p.p50_us, p.p99_us, p.p999_us,
          p.cpu_us_per_io,
          p.queue_depth == v.readers_to_saturate ? "  <- knee" : "");
    }
    PrintPacedReads(v);
    std::cout << "  sequential reads\n    request    qd     MB/s\n";
    for (const SequentialReadPoint& p : v.seqread) {
      std::cout << fmt::format("  {:>9} {:>5} {:>8.1f}\n",
                               HumanSize(static_cast<double>(p.request_size)),
                               p.queue_depth, p.mbps);
    }
    std::cout
        << "  WAL-style writes (depth 1, durable each)\n    method          "
           "size     IOPS   p50 us   p99 us\n";
    for (const SyncWritePoint& p : v.syncwrite) {
      std::cout << fmt::format("    {:<13} {:>6} {:>8.0f} {:>8.1f} {:>8.1f}\n",
                               p.method,
                               HumanSize(static_cast<double>(p.request_size)),
                               p.iops, p.p50_us, p.p99_us);
    }
    std::cout
        << "  random 8 KiB writes (closing fdatasync included)\n    qd     "
           "  IOPS   p50 us   p99 us\n";
    for (const RandomWritePoint& p : v.randwrite) {
      std::cout << fmt::format("  {:>4} {:>10.0f} {:>8.1f} {:>8.1f}\n",
                               p.queue_depth, p.iops, p.p50_us, p.p99_us);
    }
    std::cout << fmt::format(
        "  summary: read {:.0f} IOPS at qd {} (the knee), {:.0f} us at qd 1; "
        "sequential read {:.0f} MB/s, write {:.0f} MB/s (durable); commit "
        "{:.0f} us p50\n",
        v.read_iops, v.readers_to_saturate, v.read_latency_us, v.read_mbps,
        v.write_mbps, v.sync_write_latency_us);
    PrintStripeRead(v);
    if (v.buffered_vs_direct) PrintBufferedVsDirect(*v.buffered_vs_direct);
    if (!v.shares_device_with.empty()) {
      std::cout << fmt::format("  shares its device with: {}\n",
                               fmt::join(v.shares_device_with, ", "));
    }
  }

  // The stripe-wide read size, its spread over the sweeps, the full stripe
  // and whether plan will use it (common/stripe_read.h).
  static void PrintStripeRead(const Volume& v) {
    if (v.stripe_read_size == 0) return;
    auto size = [](uint64_t b) { return HumanSize(static_cast<double>(b)); };
    StripeReadCheck c = CheckStripeReadSize(v);
    std::cout << fmt::format(
        "  stripe-wide read size {} (median of {} sweeps; single sweeps {} to "
        "{}); full stripe {}; {}: {}\n",
        size(v.stripe_read_size), v.stripe_read_repeats,
        size(v.stripe_read_size_min), size(v.stripe_read_size_max),
        v.stripe_width > 0 ? size(v.stripe_width) : "not known",
        c.trusted ? "trusted" : "not trusted", c.why);
  }

  static void PrintDurableWrite(const char* label, const DurableWrite& d) {
    std::cout << fmt::format(
        "    {:<9} {:>8.1f} {:>10.2f} {:>10.2f} {:>9.2f} {:>9.2f} {:>9.2f}\n",
        label, d.mbps, d.seconds_to_durable, d.sync_seconds, d.user_cpu_seconds,
        d.system_cpu_seconds, d.user_cpu_seconds + d.system_cpu_seconds);
  }

  static void PrintBufferedVsDirect(const BufferedVsDirect& b) {
    std::cout << fmt::format(
        "  sequential write of {}, buffered vs direct, each until durable\n"
        "    path          MB/s  durable s     sync s    user s     sys s   "
        "CPU s\n",
        HumanSize(static_cast<double>(b.buffered.bytes)));
    PrintDurableWrite("buffered", b.buffered);
    PrintDurableWrite("direct", b.direct);
    double before_sync =
        b.buffered.seconds_to_durable - b.buffered.sync_seconds;
    std::cout << fmt::format(
        "    buffered write() returned at {:.0f} MB/s; the device was paid "
        "at fdatasync. Its pages were then dropped from the page cache "
        "(posix_fadvise DONTNEED); flusher-thread CPU is not counted\n",
        before_sync > 0
            ? static_cast<double>(b.buffered.bytes) / before_sync / 1e6
            : 0);
  }

  static void PrintConcurrent(const Concurrent& c) {
    std::cout << fmt::format(
        "\nall volumes at once ({:.0f} s each: random 8 KiB reads at each "
        "knee depth + sequential 1 MiB reads at depth 4)\n"
        "  volume          alone IOPS  together IOPS  alone MB/s  together "
        "MB/s\n",
        c.seconds);
    for (const ConcurrentVolume& v : c.volumes) {
      std::cout << fmt::format(
          "  {:<14} {:>11.0f} {:>14.0f} {:>11.1f} {:>15.1f}\n", v.name,
          v.alone_read_iops, v.together_read_iops, v.alone_read_mbps,
          v.together_read_mbps);
    }
    std::cout << fmt::format(
        "  {:<14} {:>11.0f} {:>14.0f} {:>11.1f} {:>15.1f}\n"
        "  together / alone: IOPS {:.2f}, MB/s {:.2f}\n  verdict: {}\n",
        "sum", c.sum_alone_read_iops, c.read_iops, c.sum_alone_read_mbps,
        c.read_mbps, c.iops_ratio, c.mbps_ratio, c.verdict);
  }

  static void PrintTables(const VolumeSet& set) {
    const Host& h = set.host;
    std::cout << fmt::format(
        "host: {} vCPUs, {} RAM{}\n", h.vcpus,
        HumanSize(static_cast<double>(h.memory)),
        h.instance_type.empty() ? "" : ", " + h.instance_type);
    for (const Volume& v : set.volumes) PrintVolume(v);
    if (set.concurrent) PrintConcurrent(*set.concurrent);
  }

  std::vector<std::string> targets_;
  bool quick_ = false;
  std::string size_text_ = "1GiB";
  std::string output_ = "volumes.toml";
  bool json_ = false;
  bool compare_buffered_ = false;
  bool concurrent_ = false;
  std::string engine_ = "auto";
  double budget_seconds_ = 0;
  probes::SystemPaths paths_;
};

}  // namespace

PGLAYOUT_REGISTER_COMMAND(20, "probe",
                          "Measure volumes with direct I/O and write "
                          "volumes.toml",
                          ProbeCommand)

}  // namespace pglayout::cli
