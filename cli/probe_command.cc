// pglayout probe [NAME=]DIR...: measure each volume through a temporary
// file in DIR with direct I/O and write volumes.toml.

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/sysmacros.h>

#include <iostream>
#include <memory>
#include <set>

#include "cli/command.h"
#include "common/files.h"
#include "common/json.h"
#include "common/units.h"
#include "probes/probe_file.h"
#include "probes/prober.h"
#include "probes/thread_pool_engine.h"
#include "probes/topology.h"
#include "probes/uring_engine.h"

namespace pglayout::cli {
namespace {

using probes::ProbeFile;
using probes::ProbeReport;
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

Time per volume: at most 90 s (--quick: 20 s). Steps stop early once their
IOPS are known to +/-2% (95% confidence).)";

struct Target {
  std::string name;
  std::string dir;
  TargetInfo info;
  Topology topology;
};

class ProbeCommand : public Command {
 public:
  void Configure(CLI::App* app) override {
    app->add_option("targets", targets_, "[NAME=]DIR of each volume to probe")
        ->required();
    app->add_flag("--quick", quick_, "Shorter probe: at most 20 s per volume");
    app->add_option("--size", size_text_,
                    "Probe file size per volume (default 1GiB)");
    app->add_option("-o,--output", output_, "Where to write volumes.toml")
        ->capture_default_str();
    app->add_flag("--json", json_, "Print the results as JSON on stdout");
    app->add_option("--engine", engine_, "auto, io_uring or threads")
        ->check(CLI::IsMember({"auto", "io_uring", "threads"}))
        ->capture_default_str();
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
    PGLAYOUT_RETURN_IF_ERROR(ParseSize(size_text_, &size));
    if (size < probes::kMinProbeFileSize) {
      return Status::InvalidInput(fmt::format(
          "--size {} is below the minimum of {}", size_text_,
          HumanSize(static_cast<double>(probes::kMinProbeFileSize))));
    }
    std::vector<Target> targets;
    // Every target is checked before any is written to.
    PGLAYOUT_RETURN_IF_ERROR(ParseTargets(size, &targets));
    VolumeSet result;
    result.host = probes::DiscoverHost(paths_);
    for (Target& t : targets) {
      Volume v;
      PGLAYOUT_RETURN_IF_ERROR(ProbeOne(t, size, context, &v));
      result.volumes.push_back(std::move(v));
    }
    MarkSharedDevices(targets, &result);
    PGLAYOUT_RETURN_IF_ERROR(WriteTextFile(output_, VolumesToToml(result)));
    if (json_) {
      std::cout << ToJson(result).dump(2) << "\n";
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
                  Volume* v) {
    spdlog::info(
        "probing {} at {} ({} {}, {}), probe file {}", t.name, t.info.path,
        t.topology.kind.empty() ? "unknown" : t.topology.kind,
        t.topology.device.empty() ? "no block device" : t.topology.device,
        t.topology.filesystem, HumanSize(static_cast<double>(size)));
    std::unique_ptr<ProbeFile> file;
    PGLAYOUT_RETURN_IF_ERROR(
        ProbeFile::Create(t.info.path, size, &file).WithContext(t.name));
    std::unique_ptr<probes::IoEngine> engine;
    PGLAYOUT_RETURN_IF_ERROR(MakeEngine(*file, &engine));
    probes::ProbeOptions options;
    options.file_size = size;
    options.quick = quick_;
    options.budget_seconds = budget_seconds_;
    options.task = "probe " + t.name;
    ProbeReport report;
    Status st =
        probes::RunProbe(engine.get(), options, context.progress, &report);
    if (!st.ok())
      return st.WithContext(fmt::format("probe {} ({})", t.name, t.info.path));
    v->name = t.name;
    v->path = t.info.path;
    v->capacity = t.info.capacity;
    v->free_bytes = t.info.free_bytes;
    v->topology = t.topology;
    probes::ApplyTopology(t.topology, v);
    probes::ApplyReport(report, v);
    for (const std::string& note : report.notes)
      spdlog::warn("{}: {}", t.name, note);
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
    std::cout << "  random 8 KiB reads\n    qd       IOPS     MB/s   p50 us   "
                 "p99 us  p99.9 us  CPU us/IO\n";
    for (const RandomReadPoint& p : v.randread) {
      std::cout << fmt::format(
          "  {:>4} {:>10.0f} {:>8.1f} {:>8.1f} {:>8.1f} {:>9.1f} {:>10.2f}{}\n",
          p.queue_depth, p.iops, p.mbps, p.p50_us, p.p99_us, p.p999_us,
          p.cpu_us_per_io,
          p.queue_depth == v.readers_to_saturate ? "  <- knee" : "");
    }
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
        "{:.0f} us p50; stripe-wide read size {}\n",
        v.read_iops, v.readers_to_saturate, v.read_latency_us, v.read_mbps,
        v.write_mbps, v.sync_write_latency_us,
        HumanSize(static_cast<double>(v.stripe_read_size)));
    if (!v.shares_device_with.empty()) {
      std::cout << fmt::format("  shares its device with: {}\n",
                               fmt::join(v.shares_device_with, ", "));
    }
  }

  static void PrintTables(const VolumeSet& set) {
    const Host& h = set.host;
    std::cout << fmt::format(
        "host: {} vCPUs, {} RAM{}\n", h.vcpus,
        HumanSize(static_cast<double>(h.memory)),
        h.instance_type.empty() ? "" : ", " + h.instance_type);
    for (const Volume& v : set.volumes) PrintVolume(v);
  }

  std::vector<std::string> targets_;
  bool quick_ = false;
  std::string size_text_ = "1GiB";
  std::string output_ = "volumes.toml";
  bool json_ = false;
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
