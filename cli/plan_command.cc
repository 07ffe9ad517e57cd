// pglayout plan: --volumes V --workload W proposes where the data and the
// WAL should live (plan.toml, plan.json, plan.sql, stripe.sh and the plan's
// text); --catalog C first chooses the cheapest volumes from a catalog
// (planner/capacity.h); --hosts adds a Citus distribution
// (planner/citus_plan.h). The forms and their options:
// docs/planning.md#the-command.

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>

#include "cli/command.h"
#include "cli/help_format.h"
#include "cli/options.h"
#include "common/files.h"
#include "common/json.h"
#include "common/units.h"
#include "planner/capacity.h"
#include "planner/citus_plan.h"
#include "planner/plan_builder.h"
#include "planner/plan_sql.h"
#include "planner/plan_text.h"
#include "planner/stripe_script.h"

namespace pglayout::cli {
namespace {

// "public.orders=id" or "public.orders=tenant_id,id".
Status ParseKey(const std::string& text, std::string* table,
                std::vector<std::string>* columns) {
  const size_t eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    return UsageError(
        fmt::format("--key '{}': expected TABLE=COLUMN[,COLUMN...]", text));
  }
  *table = text.substr(0, eq);
  columns->clear();
  size_t start = eq + 1;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    if (comma == start) {
      return UsageError(fmt::format("--key '{}': empty column name", text));
    }
    columns->push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return Status::Ok();
}

class PlanCommand : public Command {
 public:
  void Configure(CLI::App* app) override {
    CLI::Option* volumes =
        app->add_option("--volumes", volumes_path_,
                        "The volumes you have (probed or declared)")
            ->type_name("FILE")
            ->group(kGroupInput);
    app->add_option("--workload", workload_path_,
                    "The workload (observed or imported)")
        ->type_name("FILE")
        ->group(kGroupInput)
        ->required();
    CLI::Option* catalog =
        app->add_option("--catalog", catalog_path_,
                        "Instead of --volumes: buy the cheapest set of these "
                        "cloud volume types that carries the workload")
            ->type_name("FILE")
            ->group(kGroupInput)
            ->excludes(volumes);
    volumes->excludes(catalog);
    app->add_option("--max-volumes", capacity_.max_volumes,
                    "With --catalog: most volumes in the set, WAL included "
                    "(default " +
                        std::to_string(capacity_.max_volumes) + ")")
        ->type_name("N")
        ->group(kGroupInput)
        ->needs(catalog);
    app->add_option("--provider", capacity_.provider,
                    "With --catalog: only this provider's types")
        ->type_name("NAME")
        ->group(kGroupInput)
        ->needs(catalog);
    app->add_option("--instance-cap-mbps", capacity_.instance_cap_mbps,
                    "The instance's storage bandwidth cap (default 0: none)")
        ->type_name("MBPS")
        ->group(kGroupInput);
    app->add_option("--instance-cap-iops", capacity_.instance_cap_iops,
                    "The instance's storage IOPS cap (default 0: none)")
        ->type_name("IOPS")
        ->group(kGroupInput);
    app->add_option("--target", options_.target_utilization,
                    "Target utilisation of each volume (default 0.7)")
        ->type_name("FRACTION")
        ->group(kGroupAction);
    app->add_option("--prefer", options_.prefer,
                    "Remedy for a table too hot for one volume (default "
                    "auto: partition a live server, stripe a new build)")
        ->type_name("auto|partition|stripe")
        ->group(kGroupAction)
        ->check(CLI::IsMember({"auto", "partition", "stripe"}));
    app->add_option("--headroom", options_.headroom,
                    "Fraction of each volume kept free for growth (default "
                    "0.2)")
        ->type_name("FRACTION")
        ->group(kGroupAction);
    AddDurationOption(app, "--horizon", &options_.horizon_seconds,
                      "Project relation growth this far ahead (default 180d)",
                      "s")
        ->group(kGroupAction);
    app->add_option("--growth", growth_,
                    "Declared growth, e.g. 20%/year, 5%/month, 3%/90d "
                    "(default: the observed growth)")
        ->type_name("RATE")
        ->group(kGroupAction);
    AddDurationOption(app, "--backup-window", &options_.backup_window_seconds,
                      "A base backup reads the whole database within this "
                      "during the peak (default: none)",
                      "s", 0.001)
        ->group(kGroupAction);
    AddDurationOption(app, "--recovery-budget",
                      &options_.recovery_budget_seconds,
                      "Longest acceptable crash recovery; bounds max_wal_size "
                      "(default 15min)",
                      "s")
        ->group(kGroupAction);
    app->add_option("--key", keys_,
                    "Hash key of a table (default: its primary key); "
                    "repeatable")
        ->type_name("TABLE=COLUMN[,COLUMN]")
        ->group(kGroupAction);
    app->add_option("--hosts", hosts_,
                    "Distribute over N worker hosts with Citus, or auto: when "
                    "one host falls short (writes citus.sql)")
        ->type_name("N|auto")
        ->group(kGroupCitus);
    app->add_option("--worker-volumes", worker_volumes_path_,
                    "Each worker's volumes (default: the catalog's cheapest "
                    "set, else those of --volumes)")
        ->type_name("FILE")
        ->group(kGroupCitus);
    app->add_option("--shard-count", citus_.shard_count,
                    "Shards per distributed table (default: a multiple of "
                    "the workers)")
        ->type_name("N")
        ->group(kGroupCitus);
    app->add_option("--reference-max-size", reference_max_size_,
                    "Largest reference table, copied to every worker "
                    "(default 1GB)")
        ->type_name("SIZE")
        ->group(kGroupCitus);
    app->add_option("--reference-max-changes", citus_.reference_max_changes,
                    "Most row changes/s of a reference table (default " +
                        fmt::format("{:g}", citus_.reference_max_changes) + ")")
        ->type_name("N")
        ->group(kGroupCitus);
    app->add_option("--out-dir", out_dir_,
                    "Where plan.toml, plan.json, plan.sql and stripe.sh go "
                    "(default .)")
        ->type_name("DIR")
        ->group(kGroupOutput);
    app->add_flag("--json", json_,
                  "Print the plan as JSON instead of the "
                  "report")
        ->group(kGroupOutput);
    app->footer(
        "Every input can be written by hand; docs/planning.md explains the "
        "plan.");
  }

  Status Run(const CommandContext&) override {
    PGLAYOUT_RETURN_IF_ERROR(ParseOptions());
    if (volumes_path_.empty() && catalog_path_.empty()) {
      return UsageError(
          "give --volumes (the volumes you have) or --catalog (volume types "
          "to buy from)");
    }
    Workload workload;
    PGLAYOUT_RETURN_IF_ERROR(
        AsBadInput(ReadWorkloadFile(workload_path_, &workload)));
    if (!catalog_path_.empty()) return RunCatalog(workload);
    VolumeSet volumes;
    PGLAYOUT_RETURN_IF_ERROR(
        AsBadInput(ReadVolumesFile(volumes_path_, &volumes)));
    if (capacity_.instance_cap_mbps > 0) {
      volumes.host.bandwidth_cap_mbps = capacity_.instance_cap_mbps;
    }
    if (capacity_.instance_cap_iops > 0) {
      volumes.host.iops_cap = capacity_.instance_cap_iops;
    }
    planner::PlanOutcome outcome;
    PGLAYOUT_RETURN_IF_ERROR(
        planner::BuildPlan(volumes, workload, options_, &outcome));
    Json json = planner::PlanJson(outcome);
    std::string text = planner::RenderPlanText(outcome);
    std::optional<planner::CitusPlan> citus;
    PGLAYOUT_RETURN_IF_ERROR(
        Distribute(workload, &outcome, volumes, nullptr, &citus, &text));
    if (citus) json["citus"] = planner::CitusJson(*citus);
    PGLAYOUT_RETURN_IF_ERROR(
        WriteOutputs(outcome, json, volumes, workload, citus));
    Print(json, text, "", citus.has_value());
    return Status::Ok();
  }

 private:
  Status ParseOptions() {
    if (!growth_.empty()) {
      GrowthRate rate;
      Status st = ParseGrowthRate(growth_, &rate);
      if (!st.ok()) return UsageError("--growth: " + st.message());
      options_.growth = rate;
    }
    for (const std::string& text : keys_) {
      std::string table;
      std::vector<std::string> columns;
      PGLAYOUT_RETURN_IF_ERROR(ParseKey(text, &table, &columns));
      options_.keys[table] = columns;
    }
    citus_.keys = options_.keys;
    Status size = ParseSize(reference_max_size_, &citus_.reference_max_bytes);
    if (!size.ok())
      return UsageError("--reference-max-size: " + size.message());
    if (!hosts_.empty() && hosts_ != "auto") {
      char* end = nullptr;
      const long n = std::strtol(hosts_.c_str(), &end, 10);
      if (*end != '\0' || n < 2 || n > 1000) {
        return UsageError(fmt::format(
            "--hosts '{}': expected 'auto' or a number of worker hosts, 2 "
            "to 1000",
            hosts_));
      }
      citus_.workers = static_cast<int>(n);
    }
    if (hosts_.empty() &&
        (!worker_volumes_path_.empty() || citus_.shard_count != 0)) {
      return UsageError(
          "--worker-volumes and --shard-count go with --hosts auto|N");
    }
    return Status::Ok();
  }

  // With --hosts: the Citus distribution, appended to |text|. With 'auto'
  // only when the single-host plan falls short (|outcome| null: no
  // single-host plan could be made at all).
  Status Distribute(const Workload& workload,
                    const planner::PlanOutcome* outcome,
                    const VolumeSet& coordinator, const Catalog* catalog,
                    std::optional<planner::CitusPlan>* citus,
                    std::string* text) {
    if (hosts_.empty()) return Status::Ok();
    std::string reason = fmt::format("--hosts {}", hosts_);
    if (hosts_ == "auto") {
      std::string why = "no single instance carries the workload (--catalog)";
      if (outcome != nullptr &&
          !planner::SingleHostFallsShort(*outcome, options_, &why)) {
        *text +=
            "\nCitus (--hosts auto): not proposed: one host meets the target\n";
        return Status::Ok();
      }
      reason = "one host falls short: " + why;
    }
    VolumeSet worker_volumes;
    planner::WorkerVolumes workers;
    workers.capacity = capacity_;
    if (!worker_volumes_path_.empty()) {
      PGLAYOUT_RETURN_IF_ERROR(
          AsBadInput(ReadVolumesFile(worker_volumes_path_, &worker_volumes)));
      workers.volumes = &worker_volumes;
      workers.description = worker_volumes_path_;
    } else if (catalog != nullptr) {
      workers.catalog = catalog;
      workers.description = "the catalog's cheapest set per worker";
    } else {
      workers.volumes = &coordinator;
      workers.description = "volumes like those of --volumes";
    }
    planner::CitusPlan plan;
    PGLAYOUT_RETURN_IF_ERROR(planner::PlanCitus(
        workload, options_, citus_, workers, &coordinator, reason, &plan));
    *text += planner::RenderCitusText(plan);
    *citus = std::move(plan);
    return Status::Ok();
  }

  // Capacity planning: the cheapest set, the plan on it, and volumes.toml
  // for the set. A workload no set carries prints the capacity report and
  // fails with its verdict (exit 2: the inputs ask for the impossible).
  Status RunCatalog(const Workload& workload) {
    Catalog catalog;
    PGLAYOUT_RETURN_IF_ERROR(
        AsBadInput(ReadCatalogFile(catalog_path_, &catalog)));
    planner::CapacityPlan capacity;
    PGLAYOUT_RETURN_IF_ERROR(planner::PlanCapacity(catalog, workload, options_,
                                                   capacity_, &capacity));
    if (!capacity.found && !hosts_.empty()) {
      // One instance cannot carry it: the distribution is the plan.
      planner::PlanOutcome none;
      none.plan.target_utilization = options_.target_utilization;
      none.plan.verdicts.push_back("capacity: " + capacity.verdict);
      std::string text = planner::RenderCapacity(capacity);
      std::optional<planner::CitusPlan> citus;
      PGLAYOUT_RETURN_IF_ERROR(Distribute(workload, nullptr, capacity.volumes,
                                          &catalog, &citus, &text));
      Json json = {{"capacity", planner::CapacityJson(capacity)}};
      if (citus) json["citus"] = planner::CitusJson(*citus);
      PGLAYOUT_RETURN_IF_ERROR(
          WriteOutputs(none, json, capacity.volumes, workload, citus));
      Print(json, text, "", citus.has_value());
      return Status::Ok();
    }
    if (!capacity.found) {
      if (json_) {
        std::cout << JsonText(planner::CapacityJson(capacity)) << "\n";
      } else {
        std::cout << planner::RenderCapacity(capacity);
      }
      return Status::InvalidInput("capacity: " + capacity.verdict);
    }
    Json json = planner::PlanJson(capacity.outcome);
    json["capacity"] = planner::CapacityJson(capacity);
    std::string text = planner::RenderPlanText(capacity.outcome) + "\n" +
                       planner::RenderCapacity(capacity);
    std::optional<planner::CitusPlan> citus;
    PGLAYOUT_RETURN_IF_ERROR(Distribute(workload, &capacity.outcome,
                                        capacity.volumes, &catalog, &citus,
                                        &text));
    if (citus) json["citus"] = planner::CitusJson(*citus);
    PGLAYOUT_RETURN_IF_ERROR(WriteOutputs(capacity.outcome, json,
                                          capacity.volumes, workload, citus));
    PGLAYOUT_RETURN_IF_ERROR(
        WriteTextFile(std::filesystem::path(out_dir_) / "volumes.toml",
                      VolumesToToml(capacity.volumes)));
    Print(json, text, "volumes.toml, ", citus.has_value());
    return Status::Ok();
  }

  void Print(const Json& json, const std::string& report,
             const std::string& extra_files, bool citus) const {
    if (json_) {
      std::cout << JsonText(json) << "\n";
      return;
    }
    std::cout << report
              << fmt::format(
                     "\nWrote {}plan.toml, plan.json, plan.sql{} and "
                     "stripe.sh to {}\n",
                     extra_files, citus ? ", citus.sql" : "", out_dir_);
  }

  Status WriteOutputs(const planner::PlanOutcome& outcome, const Json& json,
                      const VolumeSet& volumes, const Workload& workload,
                      const std::optional<planner::CitusPlan>& citus) {
    std::error_code error;
    std::filesystem::create_directories(out_dir_, error);
    if (error) {
      return Status::IoError(fmt::format("could not create --out-dir {}: {}",
                                         out_dir_, error.message()));
    }
    const std::string toml =
        PlanToToml(outcome.plan) +
        (citus ? "\n" + planner::CitusToml(*citus) : std::string());
    Plan check;  // what migrate will read must validate
    Status valid = ParsePlan(toml, "plan.toml", &check);
    if (!valid.ok()) {  // a bug in the planner, not the user's input
      return Status::Internal("internal error: the plan does not validate: " +
                              valid.message());
    }
    std::vector<planner::SqlStep> steps;
    PGLAYOUT_RETURN_IF_ERROR(
        planner::PlanSqlSteps(outcome.plan, outcome.sql_objects, &steps));
    const std::filesystem::path dir(out_dir_);
    PGLAYOUT_RETURN_IF_ERROR(WriteTextFile(dir / "plan.toml", toml));
    PGLAYOUT_RETURN_IF_ERROR(
        WriteTextFile(dir / "plan.json", JsonText(json) + "\n"));
    PGLAYOUT_RETURN_IF_ERROR(WriteTextFile(
        dir / "plan.sql",
        planner::RenderPlanSql(steps) + planner::WalMoveSqlNote(outcome.plan)));
    if (citus) {
      PGLAYOUT_RETURN_IF_ERROR(
          WriteTextFile(dir / "citus.sql", planner::CitusSql(*citus)));
    }
    return WriteTextFile(
        dir / "stripe.sh",
        planner::StripeScript(outcome.plan, volumes,
                              workload.Setting("data_directory").value_or("")));
  }

  std::string volumes_path_;
  std::string catalog_path_;
  std::string workload_path_;
  std::string out_dir_ = ".";
  std::string growth_;  // "" = the observed growth
  std::vector<std::string> keys_;
  bool json_ = false;
  std::string hosts_;  // "", "auto" or a number of workers
  std::string worker_volumes_path_;
  std::string reference_max_size_ = "1GB";
  planner::PlanOptions options_;
  planner::CapacityOptions capacity_;
  planner::CitusOptions citus_;
};

}  // namespace

PGLAYOUT_REGISTER_COMMAND(40, "plan",
                          "Propose where data and WAL should live, with the "
                          "settings that go with the layout",
                          PlanCommand)

}  // namespace pglayout::cli
