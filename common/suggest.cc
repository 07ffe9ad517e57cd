#include "common/suggest.h"

#include <algorithm>
#include <numeric>

namespace pglayout {

size_t EditDistance(std::string_view a, std::string_view b) {
  // One row of the dynamic-programming table is enough.
  std::vector<size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitution});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string NearestName(std::string_view word,
                        const std::vector<std::string_view>& candidates) {
  if (word.size() >= kMaxSuggestedWord) return "";
  const size_t limit = std::max<size_t>(2, word.size() / 3);
  std::string_view best;
  size_t best_distance = limit + 1;
  for (std::string_view candidate : candidates) {
    size_t d = EditDistance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return std::string(best);
}

}  // namespace pglayout
