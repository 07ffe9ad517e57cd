// Short plain-text summaries of the pipeline's files, for `pglayout check`
// and the logs: what a file holds, in a few lines a person can read.

#ifndef PGLAYOUT_COMMON_SUMMARY_H_
#define PGLAYOUT_COMMON_SUMMARY_H_

#include <string>

#include "common/model.h"

namespace pglayout {

std::string Summarize(const VolumeSet& volumes);
std::string Summarize(const Workload& workload);
std::string Summarize(const Plan& plan);

}  // namespace pglayout

#endif  // PGLAYOUT_COMMON_SUMMARY_H_
