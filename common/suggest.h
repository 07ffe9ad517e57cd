// "Did you mean ...?" for misspelt keys, settings and names.

#ifndef PGLAYOUT_COMMON_SUGGEST_H_
#define PGLAYOUT_COMMON_SUGGEST_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pglayout {

// Levenshtein distance (insertions, deletions, substitutions), case-sensitive.
size_t EditDistance(std::string_view a, std::string_view b);

// Words this long or longer get no suggestion: no key is, and the distance
// costs |word| x |candidate| (a 100 MB key would take minutes).
inline constexpr size_t kMaxSuggestedWord = 64;

// The candidate closest to |word|, if it is close enough to be a plausible
// typo (distance at most max(2, |word|/3)) and |word| is shorter than
// kMaxSuggestedWord; otherwise "". Ties go to the earlier candidate, so
// results are deterministic.
std::string NearestName(std::string_view word,
                        const std::vector<std::string_view>& candidates);

}  // namespace pglayout

#endif  // PGLAYOUT_COMMON_SUGGEST_H_
