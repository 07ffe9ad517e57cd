// Free space of directories as seen from this host (statvfs). The migrator
// runs on the database host in the common case; when it does not, the
// directories are absent here and their free space is simply unknown.

#ifndef PGLAYOUT_MIGRATOR_FREE_SPACE_H_
#define PGLAYOUT_MIGRATOR_FREE_SPACE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pglayout::migrator {

// Bytes available to unprivileged writers (f_bavail: PostgreSQL is not
// root) per directory. Paths that cannot be examined are left out.
std::map<std::string, uint64_t> LocalFreeBytes(
    const std::vector<std::string>& directories);

// Bytes free on the volume of |data_directory|/pg_wal (a link to another
// volume is followed); 0 when unknown from here.
uint64_t WalFreeBytes(const std::string& data_directory);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_FREE_SPACE_H_
