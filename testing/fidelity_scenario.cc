#include "testing/fidelity_scenario.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <thread>

#include "common/files.h"
#include "common/model.h"
#include "common/units.h"
#include "pg/sql.h"
#include "pg/sql_row.h"
#include "testing/pgbench_summary.h"
#include "testing/volume_lab.h"

namespace pglayout {
namespace {

double KibPerRead(const DiskStats& d) {
  return d.reads > 0 ? static_cast<double>(d.read_sectors * kBlockStatSector) /
                           kKiB / static_cast<double>(d.reads)
                     : 0;
}

using Say = std::function<void(const std::string&)>;

constexpr char kHotScript[] =
    "\\set aid random(1, 100000 * :scale)\n"
    "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n";
constexpr char kLookupScript[] =
    "\\set id random(1, :lookup_rows)\n"
    "SELECT payload FROM lookup WHERE id = :id;\n";
// The two tables that take the inserts.
constexpr char kWriteScript[] =
    "\\set aid random(1, 100000 * :scale)\n"
    "\\set delta random(-5000, 5000)\n"
    "INSERT INTO events (aid, note) VALUES (:aid, repeat('e', 200));\n"
    "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) "
    "VALUES (1, 1, :aid, :delta, CURRENT_TIMESTAMP);\n";

std::vector<LabVolumeSpec> LabVolumes(const FidelitySpec& spec) {
  auto volume = [&](const std::string& name, uint64_t iops) {
    return LabVolumeSpec{.name = name,
                         .size = spec.volume_size,
                         .read_iops = iops,
                         .write_iops = iops};
  };
  std::vector<LabVolumeSpec> out = {volume("base", spec.data_iops),
                                    volume("wal", spec.wal_iops)};
  for (int i = 1; i <= spec.spare_volumes; ++i) {
    out.push_back(volume("v" + std::to_string(i), spec.data_iops));
  }
  return out;
}

// <mount>/pg, owned by the server account: the path the volume is declared
// (or probed) with, and so the plan's tablespace location.
Status MakeVolumeDirectory(const LabVolume& volume, std::string* path) {
  *path = volume.mount_dir + "/pg";
  if (mkdir(path->c_str(), 0700) != 0 && errno != EEXIST) {
    return Status::FromErrno("could not create directory " + *path, errno);
  }
  ServerAccount account;
  PGLAYOUT_RETURN_IF_ERROR(GetServerAccount(&account));
  if (account.switch_user &&
      chown(path->c_str(), account.uid, account.gid) != 0) {
    return Status::FromErrno("could not give " + *path + " to postgres", errno);
  }
  return Status::Ok();
}

// volumes.toml with the lab's caps as declared figures, and the latencies of
// the local disk under the loop devices. They have no latency-against-load
// curve; --probe measures one (docs/device-model.md#latency-below-the-cap).
std::string DeclaredVolumes(const VolumeLab& lab,
                            const std::map<std::string, std::string>& paths) {
  std::string out = "# The volume lab's kernel caps (testing/volume_lab.h).\n";
  for (const LabVolume& v : lab.volumes()) {
    out += fmt::format(
        "\n[[volume]]\nname = \"{}\"\npath = \"{}\"\ncapacity = {}\n"
        "read_iops = {}\nwrite_iops = {}\nread_latency_us = 200\n"
        "sync_write_latency_us = 1000\niops_budget = \"separate\"\n"
        "[volume.topology]\ndevice = \"{}\"\ndev = \"{}:{}\"\n",
        v.spec.name, paths.at(v.spec.name), v.spec.size, v.spec.read_iops,
        v.spec.write_iops, v.loop_device.substr(v.loop_device.rfind('/') + 1),
        v.major, v.minor);
  }
  return out;
}

Status RunPglayout(const VolumeLab& lab, const std::vector<std::string>& args,
                   bool inside_lab, std::string* output) {
  Command command;
  command.argv = args;
  Completion done = inside_lab ? lab.Run(command) : RunToCompletion(command);
  if (output != nullptr) *output = done.output;
  if (done.exit_code == 0) return Status::Ok();
  std::string tail = done.output.size() > 3000
                         ? done.output.substr(done.output.size() - 3000)
                         : done.output;
  return Status::Internal(
      fmt::format("{}: {}\n{}", DescribeCommand(args),
                  done.started ? fmt::format("exit status {}, signal {}",
                                             done.exit_code, done.signal)
                               : "could not start",
                  tail));
}

struct DatabaseCounters {
  double blks_read = 0;
  double blk_read_time_ms = 0;
};

Status ReadDatabaseCounters(SqlSession* session, DatabaseCounters* out) {
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session->Execute(
      "SELECT pg_stat_clear_snapshot(), sum(blks_read)::float8, "
      "sum(blk_read_time)::float8 FROM pg_stat_database",
      {}, &r));
  SqlRowReader row(r, 0, "pg_stat_database");
  out->blks_read = row.Double(1);
  out->blk_read_time_ms = row.Double(2);
  return row.status();
}

class Scenario {
 public:
  Scenario(const FidelitySpec& spec, const Say& say) : spec_(spec), say_(say) {}

  Status Run(FidelityResult* result);

 private:
  Status BuildLab();
  Status StartServer();
  Status Load();
  Status DescribeVolumes();
  Status StartWorkload(double seconds, std::unique_ptr<BackgroundClient>* c);
  // Workload, observation and diskstats over one window.
  Status Window(const std::string& workload_file, WindowFigures* figures,
                std::map<std::string, DiskStats>* delta, double* seconds);
  // Builds the plan's stripes in the lab (VolumeLab::Stripe).
  Status BuildStripes(const Plan& plan, FidelityResult* result);
  Status Migrate(KillResume* migration);
  Status VacuumNewTables();
  // `migrate --apply` in the background, killed with SIGKILL once the
  // journal shows a copy half done, into *migration.
  Status MigrateAndKill(const std::vector<std::string>& args,
                        KillResume* migration);
  Status ChecksumTables(bool after, std::vector<TableCheck>* tables);
  Status CheckAfter(const Plan& plan, FidelityResult* result);
  Status Report();
  std::string Out(const std::string& name) const {
    return spec_.out_dir + "/" + name;
  }

  const FidelitySpec& spec_;
  const Say& say_;
  std::unique_ptr<VolumeLab> lab_;
  std::unique_ptr<PgCluster> pg_;
  std::map<std::string, std::string> paths_;  // volume -> <mount>/pg
};

Status Scenario::BuildLab() {
  VolumeLabSpec lab_spec;
  lab_spec.volumes = LabVolumes(spec_);
  lab_spec.page_cache_bytes = spec_.page_cache_bytes;
  PGLAYOUT_RETURN_IF_ERROR(VolumeLab::Create(lab_spec, &lab_));
  for (const LabVolume& v : lab_->volumes()) {
    PGLAYOUT_RETURN_IF_ERROR(MakeVolumeDirectory(v, &paths_[v.spec.name]));
  }
  say_(fmt::format("lab: {} volumes under {}", lab_->volumes().size(),
                   lab_->dir()));
  return Status::Ok();
}

Status Scenario::StartServer() {
  PgClusterOptions options;
  options.parent_dir = lab_->Find("base")->mount_dir;
  options.wal_parent_dir = lab_->Find("wal")->mount_dir;
  options.cgroup_procs_files = lab_->cgroup_procs_files();
  // Small shared buffers: the hot table's reads reach the volume (through
  // the lab's capped page cache), as a database larger than memory does.
  options.settings = {{"shared_buffers", "16MB"},
                      {"track_io_timing", "on"},
                      {"log_checkpoints", "on"},
                      {"max_wal_size", "1GB"}};
  PGLAYOUT_RETURN_IF_ERROR(PgCluster::Start(spec_.version, options, &pg_));
  say_(fmt::format("PostgreSQL {}: data on base, pg_wal on wal",
                   PgVersionMajor(spec_.version)));
  return Status::Ok();
}

Status Scenario::Load() {
  std::string output;
  PGLAYOUT_RETURN_IF_ERROR(pg_->RunClient(
      {"pgbench", "-i", "-q", "-s", std::to_string(spec_.scale)}, &output));
  std::unique_ptr<SqlSession> session;
  PGLAYOUT_RETURN_IF_ERROR(pg_->Connect(&session));
  SqlResult ignored;
  PGLAYOUT_RETURN_IF_ERROR(session->Execute(
      "CREATE TABLE lookup AS SELECT g AS id, md5(g::text) || repeat('l', "
      "120) AS payload FROM generate_series(1, $1::int) g",
      {std::to_string(spec_.lookup_rows)}, &ignored));
  for (const char* sql :
       {"ALTER TABLE lookup ADD PRIMARY KEY (id)",
        "CREATE TABLE events (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY "
        "KEY, aid int NOT NULL, at timestamptz NOT NULL DEFAULT now(), note "
        "text)",
        // pgbench -i vacuumed and analyzed its own tables.
        "VACUUM ANALYZE lookup, events", "CHECKPOINT"}) {
    PGLAYOUT_RETURN_IF_ERROR(session->Execute(sql, {}, &ignored));
  }
  for (const auto& [name, text] :
       std::map<std::string, const char*>{{"hot.sql", kHotScript},
                                          {"lookup.sql", kLookupScript},
                                          {"write.sql", kWriteScript}}) {
    PGLAYOUT_RETURN_IF_ERROR(WriteTextFile(Out(name), text));
  }
  say_(fmt::format("loaded pgbench scale {} and {} lookup rows", spec_.scale,
                   spec_.lookup_rows));
  return Status::Ok();
}

Status Scenario::DescribeVolumes() {
  if (!spec_.probe) {
    return WriteTextFile(Out("volumes.toml"), DeclaredVolumes(*lab_, paths_));
  }
  std::vector<std::string> args = {spec_.pglayout,     "probe",  "--quick",
                                   "--size",           "256MiB", "-o",
                                   Out("volumes.toml")};
  for (const LabVolume& v : lab_->volumes()) {
    args.push_back(v.spec.name + "=" + paths_.at(v.spec.name));
  }
  say_("pglayout probe --quick (inside the lab)");
  return RunPglayout(*lab_, args, /*inside_lab=*/true, nullptr);
}

Status Scenario::StartWorkload(double seconds,
                               std::unique_ptr<BackgroundClient>* client) {
  return pg_->StartClient(
      {"pgbench", "-n",
       "-c",      std::to_string(spec_.clients),
       "-j",      "2",
       "-R",      fmt::format("{:.0f}", spec_.rate_tps),
       "-T",      fmt::format("{:.0f}", seconds),
       "-D",      "scale=" + std::to_string(spec_.scale),
       "-D",      "lookup_rows=" + std::to_string(spec_.lookup_rows),
       "-f",      Out("hot.sql") + "@6",
       "-f",      Out("lookup.sql") + "@3",
       "-f",      Out("write.sql") + "@1"},
      client);
}

Status Scenario::Window(const std::string& workload_file,
                        WindowFigures* figures,
                        std::map<std::string, DiskStats>* delta,
                        double* seconds) {
  // From a cold page cache, before as after: the migration's own reads
  // (the copy, the verification, VACUUM) leave the moved table's pages in
  // it, and the kernel keeps them long enough that the window after would
  // see more hits than the one before
  // (docs/fidelity.md#what-the-model-learned).
  int dropped = 0;
  PGLAYOUT_RETURN_IF_ERROR(lab_->DropPageCache(&dropped));
  std::unique_ptr<BackgroundClient> load;
  PGLAYOUT_RETURN_IF_ERROR(
      StartWorkload(spec_.warmup_s + spec_.observe_s + 5, &load));
  std::this_thread::sleep_for(std::chrono::duration<double>(spec_.warmup_s));
  std::unique_ptr<SqlSession> session;
  PGLAYOUT_RETURN_IF_ERROR(pg_->Connect(&session));
  std::map<std::string, DiskStats> start;
  for (const LabVolume& v : lab_->volumes()) {
    PGLAYOUT_RETURN_IF_ERROR(
        lab_->ReadDiskStats(v.spec.name, &start[v.spec.name]));
  }
  DatabaseCounters db_start, db_end;
  PGLAYOUT_RETURN_IF_ERROR(ReadDatabaseCounters(session.get(), &db_start));
  auto t0 = std::chrono::steady_clock::now();
  say_(fmt::format("pglayout observe {:.0f} s under pgbench -R {:.0f}",
                   spec_.observe_s, spec_.rate_tps));
  PGLAYOUT_RETURN_IF_ERROR(
      RunPglayout(*lab_,
                  {spec_.pglayout, "observe", "--dsn", pg_->conninfo(),
                   "--duration", fmt::format("{:.0f}s", spec_.observe_s),
                   "--interval", "5s", "-o", workload_file},
                  /*inside_lab=*/false, nullptr));
  *seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  PGLAYOUT_RETURN_IF_ERROR(ReadDatabaseCounters(session.get(), &db_end));
  for (const LabVolume& v : lab_->volumes()) {
    DiskStats end;
    PGLAYOUT_RETURN_IF_ERROR(lab_->ReadDiskStats(v.spec.name, &end));
    (*delta)[v.spec.name] = end - start[v.spec.name];
  }
  std::string output;
  PGLAYOUT_RETURN_IF_ERROR(load->Wait(&output));
  (void)WriteTextFile(Out(std::filesystem::path(workload_file).stem().string() +
                          "-pgbench.log"),
                      output);
  const PgbenchSummary summary = ParsePgbenchSummary(output);
  figures->tps = summary.tps;
  figures->latency_ms = summary.latency_ms;
  const double blocks = db_end.blks_read - db_start.blks_read;
  const double read_time_ms =
      db_end.blk_read_time_ms - db_start.blk_read_time_ms;
  double device_reads = 0;
  for (const auto& [name, d] : *delta) {
    // A stripe's reads are its members'.
    if (lab_->Find(name)->members.empty()) {
      device_reads += static_cast<double>(d.reads);
    }
  }
  figures->blocks_read_per_s = blocks / *seconds;
  figures->read_latency_us = ReadLatencyPerDeviceReadUs(read_time_ms, blocks);
  figures->device_reads_per_s = device_reads / *seconds;
  figures->device_read_latency_us =
      ReadLatencyPerDeviceReadUs(read_time_ms, device_reads);
  return Status::Ok();
}

Status Scenario::MigrateAndKill(const std::vector<std::string>& args,
                                KillResume* migration) {
  std::unique_ptr<SqlSession> session;
  PGLAYOUT_RETURN_IF_ERROR(pg_->Connect(&session));
  Command command;
  command.argv = args;
  pid_t pid = -1;
  PGLAYOUT_RETURN_IF_ERROR(
      SpawnCommand(command, Out("migrate-killed.log"), &pid));
  int wait_status = 0;
  while (!WaitForChildFor(pid, 50, &wait_status)) {
    KillResume progress;
    bool copying = false;
    Status read = ReadCopyProgress(session.get(), &progress, &copying);
    bool halfway = copying && (progress.phase != "copy" ||
                               2 * progress.rows_copied >= progress.rows_total);
    if (!read.ok() || !halfway) continue;
    kill(pid, SIGKILL);
    PGLAYOUT_RETURN_IF_ERROR(WaitForChild(pid, &wait_status));
    progress.killed =
        WIFSIGNALED(wait_status) && WTERMSIG(wait_status) == SIGKILL;
    *migration = progress;
    if (migration->killed) {
      say_(fmt::format(
          "killed pglayout migrate with SIGKILL: {} in its {} phase, {} of "
          "{} rows copied",
          progress.step, progress.phase, progress.rows_copied,
          progress.rows_total));
      return Status::Ok();
    }
    break;
  }
  // It ended before it could be killed: fine as long as it succeeded.
  if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0) {
    return Status::Internal(fmt::format(
        "{}: {}\n{}", DescribeCommand(args), DescribeWaitStatus(wait_status),
        TailOfFile(Out("migrate-killed.log"), 30)));
  }
  say_("pglayout migrate ended before it could be killed");
  return Status::Ok();
}

Status Scenario::BuildStripes(const Plan& plan, FidelityResult* result) {
  for (const Stripe& stripe : plan.stripes) {
    std::string path;
    for (const TablespaceSpec& ts : plan.tablespaces) {
      if (ts.volume == stripe.name) path = ts.path;
    }
    if (path.empty()) {
      // A stripe for pg_wal: moving the WAL is a step by hand with a
      // restart, which the scenario does not take (see wal_now).
      say_("the plan's stripe " + stripe.name +
           " holds no tablespace (the WAL's): not built");
      continue;
    }
    const std::string mount = std::filesystem::path(path).parent_path();
    std::string members;
    for (const std::string& m : stripe.members) {
      members += (members.empty() ? "" : "+") + m;
    }
    say_(fmt::format(
        "the plan's stripe {} ({}): btrfs raid0 at {}, as stripe.sh would "
        "build it with {}",
        stripe.name, members, mount, stripe.tool));
    PGLAYOUT_RETURN_IF_ERROR(lab_->Stripe(stripe.name, stripe.members, mount));
    PGLAYOUT_RETURN_IF_ERROR(
        MakeVolumeDirectory(*lab_->Find(stripe.name), &paths_[stripe.name]));
    if (paths_[stripe.name] != path) {
      return Status::Internal("the stripe's directory " + paths_[stripe.name] +
                              " is not the plan's tablespace " + path);
    }
    result->stripes.push_back(fmt::format("{} ({})", stripe.name, members));
  }
  return Status::Ok();
}

Status Scenario::Migrate(KillResume* migration) {
  std::unique_ptr<BackgroundClient> load;
  PGLAYOUT_RETURN_IF_ERROR(StartWorkload(3600, &load));
  std::vector<std::string> args = {
      spec_.pglayout,  "migrate", Out("plan/plan.toml"), "--dsn",
      pg_->conninfo(), "--apply", "--restore-wait",      "0"};
  args.insert(args.end(), spec_.migrate_options.begin(),
              spec_.migrate_options.end());
  Status s = Status::Ok();
  if (spec_.kill_and_resume) {
    say_("pglayout migrate --apply under pgbench -R, to be killed halfway");
    s = MigrateAndKill(args, migration);
  }
  std::string output;
  if (s.ok()) {
    say_(migration->killed
             ? "pglayout migrate --apply again: it resumes from its journal"
             : "pglayout migrate --apply under pgbench -R");
    s = RunPglayout(*lab_, args, /*inside_lab=*/false, &output);
    (void)WriteTextFile(Out("migrate.log"), output);
    migration->resumed = output.find(" resumed") != std::string::npos;
  }
  if (s.ok()) s = VacuumNewTables();
  PGLAYOUT_RETURN_IF_ERROR(load->Stop(nullptr));
  return s;
}

// The new tables' first vacuum (autovacuum's insert threshold) reads each of
// them whole, at some moment within autovacuum_naptime: it belongs to the
// migration, not to the layout's steady state. Only VACUUM: migrate analyzed
// what it swapped in, and the old copies it keeps in schema pglayout are
// nobody's workload (on PostgreSQL 15 a whole-database VACUUM ANALYZE here
// took 78 s, this VACUUM 13 s).
Status Scenario::VacuumNewTables() {
  say_("VACUUM: the new tables' first vacuum, before measuring");
  std::unique_ptr<SqlSession> session;
  PGLAYOUT_RETURN_IF_ERROR(pg_->Connect(&session));
  SqlValue tables;
  PGLAYOUT_RETURN_IF_ERROR(QueryValue(
      session.get(),
      "SELECT string_agg(format('%I.%I', schemaname, relname), ', ') FROM "
      "pg_stat_user_tables WHERE schemaname <> 'pglayout'",
      {}, &tables));
  return tables ? ExecuteSql(session.get(), "VACUUM " + *tables) : Status::Ok();
}

Status Scenario::ChecksumTables(bool after, std::vector<TableCheck>* tables) {
  std::unique_ptr<SqlSession> session;
  PGLAYOUT_RETURN_IF_ERROR(pg_->Connect(&session));
  if (!after) {
    // The workload inserts into these two: compared on the rows they held
    // before the migration.
    PGLAYOUT_RETURN_IF_ERROR(pglayout::ListTables(
        session.get(), {{"events", "id"}, {"pgbench_history", "mtime"}},
        tables));
  }
  say_(fmt::format("counting and checksumming the rows of {} tables ({})",
                   tables->size(), after ? "after" : "before the migration"));
  return pglayout::ChecksumTables(session.get(), after, tables);
}

Status Scenario::CheckAfter(const Plan& plan, FidelityResult* result) {
  std::unique_ptr<SqlSession> session;
  PGLAYOUT_RETURN_IF_ERROR(pg_->Connect(&session));
  PGLAYOUT_RETURN_IF_ERROR(
      CheckPlacements(session.get(), plan, &result->placements));
  PGLAYOUT_RETURN_IF_ERROR(
      ReadVerifications(session.get(), &result->verifications));
  return ReadLastRunState(session.get(), &result->migration.run_state);
}

Status Scenario::Report() {
  say_("pglayout report --after workload-after.toml");
  return RunPglayout(
      *lab_,
      {spec_.pglayout, "report", "--volumes", Out("volumes.toml"), "--workload",
       Out("workload.toml"), "--plan", Out("plan/plan.json"), "--journal",
       pg_->conninfo(), "--after", Out("workload-after.toml"), "-o",
       Out("report.html")},
      /*inside_lab=*/false, nullptr);
}

Status Scenario::Run(FidelityResult* result) {
  PGLAYOUT_RETURN_IF_ERROR(BuildLab().WithContext("building the lab"));
  // The probe measures the volumes alone, as a DBA probes new volumes: no
  // server writes its WAL or checkpoints to the volume being probed.
  PGLAYOUT_RETURN_IF_ERROR(
      DescribeVolumes().WithContext("describing the volumes"));
  PGLAYOUT_RETURN_IF_ERROR(StartServer().WithContext("starting PostgreSQL"));
  PGLAYOUT_RETURN_IF_ERROR(Load().WithContext("loading the tables"));
  std::map<std::string, DiskStats> before, after;
  double before_s = 0, after_s = 0;
  PGLAYOUT_RETURN_IF_ERROR(
      Window(Out("workload.toml"), &result->before, &before, &before_s)
          .WithContext("the window before"));
  std::vector<std::string> plan_args = {spec_.pglayout, "plan",
                                        "--volumes",    Out("volumes.toml"),
                                        "--workload",   Out("workload.toml"),
                                        "--out-dir",    Out("plan")};
  plan_args.insert(plan_args.end(), spec_.plan_options.begin(),
                   spec_.plan_options.end());
  say_(DescribeCommand(plan_args));
  PGLAYOUT_RETURN_IF_ERROR(
      RunPglayout(*lab_, plan_args, /*inside_lab=*/false, nullptr)
          .WithContext("planning"));
  Plan plan;
  PGLAYOUT_RETURN_IF_ERROR(ReadPlanFile(Out("plan/plan.toml"), &plan));
  PGLAYOUT_RETURN_IF_ERROR(
      BuildStripes(plan, result).WithContext("building the plan's stripe"));
  if (spec_.check_rows) {
    PGLAYOUT_RETURN_IF_ERROR(ChecksumTables(/*after=*/false, &result->tables)
                                 .WithContext("checking the rows before"));
  }
  PGLAYOUT_RETURN_IF_ERROR(
      Migrate(&result->migration).WithContext("migrating"));
  PGLAYOUT_RETURN_IF_ERROR(
      Window(Out("workload-after.toml"), &result->after, &after, &after_s)
          .WithContext("the window after"));

  VolumeSet described;
  PGLAYOUT_RETURN_IF_ERROR(ReadVolumesFile(Out("volumes.toml"), &described));
  result->target = plan.target_utilization;
  result->verdicts = plan.verdicts;
  result->wal_volume = plan.wal_volume;
  result->wal_reason = plan.wal_reason;
  result->wal_now = plan.wal_now;
  std::vector<double> reads_after, latency_after, reads_before, latency_before;
  for (const LabVolume& v : lab_->volumes()) {
    if (!v.stripe.empty()) continue;  // counted in its stripe
    VolumeFidelity f;
    f.volume = v.spec.name;
    f.members = v.members;
    f.cap_read_iops = static_cast<double>(v.spec.read_iops);
    f.cap_write_iops = static_cast<double>(v.spec.write_iops);
    if (const Volume* d = described.Find(f.volume)) {
      f.described_read_iops = d->read_iops;
      f.described_write_iops = d->write_iops;
      f.described_sync_write_latency_us = d->sync_write_latency_us;
    }
    for (const ForecastEntry& e : plan.forecast) {
      if (e.volume != f.volume) continue;
      f.forecast_before = e.utilization_before;
      f.forecast_after = e.utilization_after;
      f.forecast_read_iops_after = e.read_iops;
      f.forecast_read_latency_after_us = e.read_latency_us_after;
      reads_after.push_back(e.read_iops);
      latency_after.push_back(e.read_latency_us_after);
      f.forecast_read_latency_before_us = e.read_latency_us_before;
    }
    // The budget volumes.toml gives it, as the plan counted it; a stripe
    // has its members'.
    bool separate = true;
    for (const std::string& name :
         v.members.empty() ? std::vector<std::string>{f.volume} : v.members) {
      const Volume* d = described.Find(name);
      separate = separate && d != nullptr && d->iops_budget == "separate";
    }
    const DiskStats& b = before[f.volume];
    const DiskStats& a = after[f.volume];
    f.reads_before = static_cast<double>(b.reads) / before_s;
    reads_before.push_back(f.reads_before);
    latency_before.push_back(f.forecast_read_latency_before_us);
    f.writes_before = static_cast<double>(b.writes) / before_s;
    f.reads_after = static_cast<double>(a.reads) / after_s;
    f.writes_after = static_cast<double>(a.writes) / after_s;
    f.device_read_latency_before_us = ReadLatencyPerDeviceReadUs(
        static_cast<double>(b.read_ms), static_cast<double>(b.reads));
    f.device_read_latency_after_us = ReadLatencyPerDeviceReadUs(
        static_cast<double>(a.read_ms), static_cast<double>(a.reads));
    f.read_kib_before = KibPerRead(b);
    f.read_kib_after = KibPerRead(a);
    f.separate_budgets = separate;
    f.measured_before =
        MeasuredUtilisation(f.reads_before, f.writes_before, f.cap_read_iops,
                            f.cap_write_iops, separate);
    f.measured_after =
        MeasuredUtilisation(f.reads_after, f.writes_after, f.cap_read_iops,
                            f.cap_write_iops, separate);
    result->volumes.push_back(f);
  }
  result->forecast_read_latency_before_us =
      ReadWeightedLatencyUs(reads_before, latency_before);
  result->forecast_read_latency_after_us =
      ReadWeightedLatencyUs(reads_after, latency_after);
  if (spec_.check_rows) {
    PGLAYOUT_RETURN_IF_ERROR(ChecksumTables(/*after=*/true, &result->tables)
                                 .WithContext("checking the rows after"));
    PGLAYOUT_RETURN_IF_ERROR(
        CheckAfter(plan, result).WithContext("checking the placements"));
  }
  if (spec_.report) {
    PGLAYOUT_RETURN_IF_ERROR(Report().WithContext("writing the report"));
    result->report_path = Out("report.html");
  }
  std::string log;
  if (ReadTextFile(pg_->log_path(), &log).ok()) {
    (void)WriteTextFile(Out("server.log"), log);
  }
  if (spec_.before_teardown) spec_.before_teardown(pg_->conninfo());
  return Status::Ok();
}

}  // namespace

double MeasuredUtilisation(double reads, double writes, double read_cap,
                           double write_cap, bool separate_budgets) {
  const double r = read_cap > 0 ? reads / read_cap : 0;
  const double w = write_cap > 0 ? writes / write_cap : 0;
  return separate_budgets ? std::max(r, w) : r + w;
}

double ReadLatencyPerDeviceReadUs(double read_time_ms, double device_reads) {
  return device_reads > 0 ? 1000 * read_time_ms / device_reads : 0;
}

double ReadWeightedLatencyUs(const std::vector<double>& reads,
                             const std::vector<double>& latency_us) {
  double weighted = 0, total = 0;
  for (size_t i = 0; i < reads.size() && i < latency_us.size(); ++i) {
    weighted += reads[i] * latency_us[i];
    total += reads[i];
  }
  return total > 0 ? weighted / total : 0;
}

Status RunFidelityScenario(const FidelitySpec& spec, FidelityResult* result,
                           const Say& say) {
  if (spec.pglayout.empty() || spec.out_dir.empty()) {
    return Status::Internal(
        "the fidelity scenario needs pglayout and "
        "out_dir");
  }
  Scenario scenario(spec, say);
  // The server stops and the lab is torn down when |scenario| goes, also
  // after a failure: the cluster is destroyed first (it lives on the lab).
  return scenario.Run(result);
}

std::string FormatFidelity(const FidelityResult& result) {
  size_t width = 6;
  for (const VolumeFidelity& v : result.volumes) {
    width = std::max(width, v.volume.size());
  }
  std::string out =
      fmt::format("{:<{}} {:>9} {:>9} {:>9} {:>9} {:>7} {:>9} {:>9}\n",
                  "volume", width, "fc before", "ms before", "fc after",
                  "ms after", "after", "reads/s", "fc reads");
  for (const VolumeFidelity& v : result.volumes) {
    double ratio =
        v.forecast_after > 0 ? v.measured_after / v.forecast_after : 0;
    out += fmt::format(
        "{:<{}} {:>8.0f}% {:>8.0f}% {:>8.0f}% {:>8.0f}% {:>6.2f}x {:>9.0f} "
        "{:>9.0f}\n",
        v.volume, width, 100 * v.forecast_before, 100 * v.measured_before,
        100 * v.forecast_after, 100 * v.measured_after, ratio, v.reads_after,
        v.forecast_read_iops_after);
  }
  double reads_before = 0, reads_after = 0;
  for (const VolumeFidelity& v : result.volumes) {
    reads_before += v.reads_before;
    reads_after += v.reads_after;
  }
  out += fmt::format(
      "reads/s: the server's blks_read {:.0f} before, {:.0f} after; the "
      "volumes' {:.0f} before, {:.0f} after\n",
      result.before.blocks_read_per_s, result.after.blocks_read_per_s,
      reads_before, reads_after);
  auto ratio = [](double measured, double forecast) {
    return forecast > 0 ? fmt::format("{:.2f}x", measured / forecast)
                        : std::string("-");
  };
  out += fmt::format(
      "read latency per read that reached a volume (server read time / the "
      "volumes' reads): before forecast {:.0f} us, measured {:.0f} us ({}); "
      "after forecast {:.0f} us, measured {:.0f} us ({})\n",
      result.forecast_read_latency_before_us,
      result.before.device_read_latency_us,
      ratio(result.before.device_read_latency_us,
            result.forecast_read_latency_before_us),
      result.forecast_read_latency_after_us,
      result.after.device_read_latency_us,
      ratio(result.after.device_read_latency_us,
            result.forecast_read_latency_after_us));
  std::vector<std::string> own;
  for (const VolumeFidelity& v : result.volumes) {
    if (v.reads_before + v.reads_after < 1) continue;
    own.push_back(fmt::format(
        "{} {:.0f} -> {:.0f} us (forecast {:.0f}), {:.1f} -> {:.1f} KiB",
        v.volume, v.device_read_latency_before_us,
        v.device_read_latency_after_us, v.forecast_read_latency_after_us,
        v.read_kib_before, v.read_kib_after));
  }
  out += fmt::format(
      "the volumes' own time and size per read (diskstats, no throttle "
      "wait): {}\n",
      fmt::join(own, "; "));
  out += fmt::format(
      "the server's read latency per block read (page-cache hits included): "
      "{:.0f} us before, {:.0f} us after\n",
      result.before.read_latency_us, result.after.read_latency_us);
  out += fmt::format(
      "pgbench: {:.1f} tps at {:.2f} ms before, {:.1f} tps at {:.2f} ms "
      "after\n",
      result.before.tps, result.before.latency_ms, result.after.tps,
      result.after.latency_ms);
  return out;
}

}  // namespace pglayout
