// Runs the real pglayout binary: `pglayout plan --hosts auto|N` writes the
// Citus distribution (citus.sql, [citus] in plan.toml, "citus" in
// plan.json) and prints it; bad --hosts options are the user's to fix.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "common/json.h"
#include "tests/run_pglayout.h"

namespace pglayout {
namespace {

constexpr char kVolumes[] = R"(
[[volume]]
name = "wal"
path = "/mnt/wal"
capacity = "100GB"
read_iops = 10000
write_iops = 10000
sync_write_latency_us = 500
[[volume]]
name = "data"
path = "/mnt/data"
capacity = "2000GB"
read_iops = 10000
write_iops = 10000
sync_write_latency_us = 900
)";

// A multi-tenant schema; |reads| sets how hard the big tables are read.
std::string Workload(int reads) {
  return fmt::format(R"toml(
[wal]
bytes_per_second = 14000000
commits_per_second = 500
[[relation]]
name = "public.customers"
size = "20GB"
read_iops = {0}
write_iops = 50
updates_per_second = 50
primary_key = ["id"]
[[relation]]
name = "public.orders"
size = "200GB"
read_iops = {0}
write_iops = 200
inserts_per_second = 300
primary_key = ["customer_id", "id"]
foreign_keys_out = ["orders_customer_fkey (customer_id) -> public.customers (id)"]
[[relation]]
name = "public.order_items"
size = "300GB"
read_iops = {0}
write_iops = 300
inserts_per_second = 900
primary_key = ["customer_id", "order_id", "id"]
foreign_keys_out = ["items_order_fkey (customer_id, order_id) -> public.orders (customer_id, id)", "items_country_fkey (country) -> public.\"Countries\" (code)"]
[[relation]]
name = 'public."Countries"'
size = "1MB"
read_iops = 1
primary_key = ["code"]
)toml",
                     reads);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

Completion Plan(const std::string& name, int reads,
                const std::vector<std::string>& extra) {
  std::vector<std::string> args = {
      "plan",
      "--volumes",
      WriteTempFile(name + "_volumes.toml", kVolumes),
      "--workload",
      WriteTempFile(name + "_workload.toml", Workload(reads)),
      "--out-dir",
      ::testing::TempDir() + "/" + name};
  args.insert(args.end(), extra.begin(), extra.end());
  return RunPglayout(args);
}

TEST(CitusCli, HostsNWritesCitusSqlInOrderAndAPlanThatChecks) {
  const std::string dir = ::testing::TempDir() + "/citus_n";
  Completion run = Plan("citus_n", 1000, {"--hosts", "3"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("Citus distribution (citus.sql)"),
            std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("citus.sql and stripe.sh"), std::string::npos);

  const std::string sql = ReadFile(dir + "/citus.sql");
  size_t at = 0;
  for (const std::string& line : {
           std::string("CREATE EXTENSION IF NOT EXISTS citus;\n"),
           std::string("SELECT citus_add_node('worker3.invalid', 5432);\n"),
           std::string("SELECT create_reference_table("
                       "'\"public\".\"Countries\"');\n"),
           std::string("SELECT create_distributed_table("
                       "'\"public\".\"customers\"', 'id', colocate_with => "
                       "'none', shard_count => 48);\n"),
           std::string("SELECT create_distributed_table("
                       "'\"public\".\"orders\"', 'customer_id', colocate_with "
                       "=> '\"public\".\"customers\"');\n"),
           std::string("SELECT create_distributed_table("
                       "'\"public\".\"order_items\"', 'customer_id', "
                       "colocate_with => '\"public\".\"customers\"');\n"),
       }) {
    const size_t found = sql.find(line, at);
    ASSERT_NE(found, std::string::npos) << line << "\nin\n" << sql;
    at = found + line.size();
  }

  const std::string toml = ReadFile(dir + "/plan.toml");
  EXPECT_NE(toml.find("[citus]"), std::string::npos);
  EXPECT_NE(toml.find("workers = 3"), std::string::npos);
  Completion check = RunPglayout({"check", dir + "/plan.toml"});
  EXPECT_EQ(check.exit_code, 0) << check.output;

  const Json json = Json::parse(ReadFile(dir + "/plan.json"));
  ASSERT_TRUE(json.contains("citus"));
  EXPECT_EQ(json["citus"]["workers"], 3);
  EXPECT_EQ(json["citus"]["shard_count"], 48);
  EXPECT_EQ(json["citus"]["groups"].size(), 1u);
  EXPECT_EQ(json["citus"]["worker_forecast"].size(), 3u);
}

TEST(CitusCli, AutoProposesADistributionOnlyWhenOneHostFallsShort) {
  Completion fits = Plan("citus_fits", 500, {"--hosts", "auto"});
  ASSERT_EQ(fits.exit_code, 0) << fits.output;
  EXPECT_NE(fits.output.find("not proposed: one host meets the target"),
            std::string::npos)
      << fits.output;
  EXPECT_FALSE(
      std::ifstream(::testing::TempDir() + "/citus_fits/citus.sql").good());

  // 3 x 20,000 reads/s on volumes of 10,000 IOPS: no single host can.
  Completion over = Plan("citus_over", 20000, {"--hosts", "auto"});
  ASSERT_EQ(over.exit_code, 0) << over.output;
  EXPECT_NE(over.output.find("why: one host falls short: the busiest data "
                             "volume of the single-host plan"),
            std::string::npos)
      << over.output;
  const Json json =
      Json::parse(ReadFile(::testing::TempDir() + "/citus_over/plan.json"));
  ASSERT_TRUE(json.contains("citus"));
  EXPECT_GE(json["citus"]["workers"].get<int>(), 2);
  EXPECT_TRUE(json["citus"]["worker_forecast"][0]["fits"].get<bool>())
      << json["citus"].dump(2);
}

// No instance of the catalog carries the workload under a 300 MB/s cap:
// the distribution is the plan, and the workers and the coordinator are
// each the catalog's cheapest set for their share (run from the tree).
TEST(CitusCli, WithACatalogTheDistributionIsThePlanWhenNoInstanceCarriesIt) {
  const std::string dir = ::testing::TempDir() + "/citus_catalog";
  Completion run = RunPglayout(
      {"plan", "--catalog", "examples/catalog/cloud_volumes.toml", "--workload",
       "examples/oracle_cloud/workload.toml", "--instance-cap-mbps", "300",
       "--hosts", "auto", "--out-dir", dir});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const Json json = Json::parse(ReadFile(dir + "/plan.json"));
  ASSERT_TRUE(json.contains("citus")) << json.dump(2);
  EXPECT_FALSE(json["capacity"]["found"].get<bool>());
  EXPECT_TRUE(json["citus"]["worker_forecast"][0]["fits"].get<bool>());
  EXPECT_GT(
      json["citus"]["worker_forecast"][0]["price_per_month"].get<double>(), 0);
  EXPECT_TRUE(json["citus"]["coordinator"]["fits"].get<bool>())
      << json["citus"]["coordinator"].dump(2);
  EXPECT_NE(ReadFile(dir + "/citus.sql").find("create_distributed_table"),
            std::string::npos);
}

TEST(CitusCli, BadHostsOptionsAreTheUsersToFix) {
  Completion one = Plan("citus_bad", 500, {"--hosts", "1"});
  EXPECT_EQ(one.exit_code, 2) << one.output;
  EXPECT_NE(one.output.find("--hosts '1'"), std::string::npos) << one.output;
  Completion lonely =
      Plan("citus_bad2", 500, {"--worker-volumes", "/nonexistent.toml"});
  EXPECT_EQ(lonely.exit_code, 2) << lonely.output;
  EXPECT_NE(lonely.output.find("go with --hosts"), std::string::npos);
  Completion missing =
      Plan("citus_bad3", 500,
           {"--hosts", "2", "--worker-volumes", "/nonexistent/worker.toml"});
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
}

}  // namespace
}  // namespace pglayout
