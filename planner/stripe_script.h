// stripe.sh: the shell commands a plan needs outside PostgreSQL, for a
// person to read, adapt and run. pglayout never runs them, and every
// command in the file is commented out, so running the file by mistake does
// nothing: building a stripe destroys what is on its members.
//
// Sections: each stripe (mdadm or LVM, with the chunk, the filesystem
// geometry and the mount), the tablespace directories (they must exist and
// belong to postgres before CREATE TABLESPACE), and moving pg_wal to its
// volume when the plan puts it elsewhere than the data directory.

#ifndef PGLAYOUT_PLANNER_STRIPE_SCRIPT_H_
#define PGLAYOUT_PLANNER_STRIPE_SCRIPT_H_

#include <string>
#include <vector>

#include "common/model.h"

namespace pglayout::planner {

// |data_directory|: the server's, "" when unknown (a new build).
std::string StripeScript(const Plan& plan, const VolumeSet& volumes,
                         const std::string& data_directory);

}  // namespace pglayout::planner

#endif  // PGLAYOUT_PLANNER_STRIPE_SCRIPT_H_
