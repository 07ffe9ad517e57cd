// Input files shared by the tests that run `pglayout plan`: a host of two
// volumes ("wal" and "data") and a workload of one relation on it. Line
// numbers matter to the tests that break a key: add below, never above.

#ifndef PGLAYOUT_TESTS_CLI_FIXTURES_H_
#define PGLAYOUT_TESTS_CLI_FIXTURES_H_

namespace pglayout::testing_fixtures {

inline constexpr char kTwoVolumes[] = R"([[volume]]
name = "wal"
path = "/mnt/wal"
capacity = "100GB"
read_iops = 3000
write_iops = 3000
sync_write_latency_us = 500
[[volume]]
name = "data"
path = "/mnt/data"
capacity = "500GB"
read_iops = 3000
write_iops = 3000
sync_write_latency_us = 900
)";

inline constexpr char kOneRelationWorkload[] = R"([settings]
data_directory = "/mnt/data/pgdata"
[wal]
bytes_per_second = 14000000
commits_per_second = 500
[[relation]]
name = "public.t"
size = "10GB"
read_iops = 1000
write_iops = 100
)";

}  // namespace pglayout::testing_fixtures

#endif  // PGLAYOUT_TESTS_CLI_FIXTURES_H_
