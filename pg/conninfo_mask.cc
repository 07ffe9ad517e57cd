#include "pg/conninfo_mask.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <vector>

namespace pglayout {
namespace {

constexpr char kMask = '*';

bool Space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

void MaskSpan(size_t begin, size_t end, std::string* text) {
  for (size_t i = begin; i < end && i < text->size(); ++i) (*text)[i] = kMask;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A URI's query keyword as libpq decodes it ("pass%77ord" is "password").
std::string PercentDecoded(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && HexValue(text[i + 1]) >= 0 &&
        HexValue(text[i + 2]) >= 0) {
      out +=
          static_cast<char>(HexValue(text[i + 1]) * 16 + HexValue(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

bool IsUri(std::string_view text) {
  return text.starts_with("postgresql://") || text.starts_with("postgres://");
}

// postgresql://[user[:password]@]host.../db?key=value&...: the userinfo
// ends at the first '@' before any '/' (as libpq reads it); the password
// is what follows its first ':'.
std::string MaskUri(std::string_view uri) {
  std::string out(uri);
  const size_t start = uri.find("://") + 3;
  const size_t stop = uri.find_first_of("@/", start);
  if (stop != std::string_view::npos && uri[stop] == '@') {
    const size_t colon = uri.find(':', start);
    if (colon < stop) MaskSpan(colon + 1, stop, &out);
  }
  size_t query = uri.find('?', start);
  if (query == std::string_view::npos) return out;
  size_t pos = query + 1;
  while (pos <= uri.size()) {
    size_t amp = uri.find('&', pos);
    if (amp == std::string_view::npos) amp = uri.size();
    const std::string_view pair = uri.substr(pos, amp - pos);
    const size_t eq = pair.find('=');
    if (eq != std::string_view::npos &&
        PercentDecoded(pair.substr(0, eq)) == "password") {
      MaskSpan(pos + eq + 1, amp, &out);
    }
    pos = amp + 1;
  }
  return out;
}

struct Pair {
  std::string_view keyword;
  size_t value_begin = 0;  // the value's bytes, inside its quotes if any
  size_t value_end = 0;
  bool escaped = false;  // the value holds a backslash escape
};

// One keyword = value of libpq's conninfo syntax at |*pos|: the value is
// bare up to whitespace or single-quoted, a backslash escaping the next
// byte in both. false when the text is not in that syntax.
bool NextPair(std::string_view text, size_t* pos, Pair* pair) {
  size_t p = *pos;
  const size_t key_begin = p;
  while (p < text.size() && text[p] != '=' && !Space(text[p])) ++p;
  pair->keyword = text.substr(key_begin, p - key_begin);
  while (p < text.size() && Space(text[p])) ++p;
  if (pair->keyword.empty() || p >= text.size() || text[p] != '=') {
    return false;
  }
  ++p;
  while (p < text.size() && Space(text[p])) ++p;
  const bool quoted = p < text.size() && text[p] == '\'';
  if (quoted) ++p;
  pair->value_begin = p;
  pair->escaped = false;
  while (p < text.size()) {
    if (text[p] == '\\') {
      pair->escaped = true;
      p += 2;
      continue;
    }
    if (quoted ? text[p] == '\'' : Space(text[p])) break;
    ++p;
  }
  p = std::min(p, text.size());
  pair->value_end = p;
  if (quoted && p < text.size()) ++p;  // the closing quote
  *pos = p;
  return true;
}

std::string MaskKeywords(std::string_view text) {
  std::string out(text);
  size_t pos = 0;
  while (true) {
    while (pos < text.size() && Space(text[pos])) ++pos;
    if (pos >= text.size()) break;
    Pair pair;
    if (!NextPair(text, &pos, &pair)) return std::string(text);
    if (pair.keyword == "password") {
      MaskSpan(pair.value_begin, pair.value_end, &out);
    } else if (pair.keyword == "dbname" && !pair.escaped) {
      // libpq expands a dbname that is itself a connection string.
      const std::string inner = MaskConninfoPassword(
          text.substr(pair.value_begin, pair.value_end - pair.value_begin));
      out.replace(pair.value_begin, inner.size(), inner);
    }
  }
  return out;
}

}  // namespace

std::string MaskConninfoPassword(std::string_view conninfo) {
  if (IsUri(conninfo)) return MaskUri(conninfo);
  if (conninfo.find('=') == std::string_view::npos) {
    return std::string(conninfo);
  }
  return MaskKeywords(conninfo);
}

std::string MaskArgumentPassword(std::string_view argument) {
  std::string out = MaskConninfoPassword(argument);
  const size_t eq = argument.find('=');
  if (argument.starts_with("--") && eq != std::string_view::npos) {
    const std::string value = MaskConninfoPassword(out.substr(eq + 1));
    out.replace(eq + 1, value.size(), value);
  }
  return out;
}

namespace {

std::string BackslashUnescaped(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) ++i;
    out += text[i];
  }
  return out;
}

void ReplaceAll(const std::string& from, std::string* text) {
  if (from.empty()) return;
  for (size_t at = text->find(from); at != std::string::npos;
       at = text->find(from, at + 4)) {
    text->replace(at, from.size(), "****");
  }
}

}  // namespace

std::string RedactPasswords(std::string_view text, std::string_view conninfo) {
  const std::string masked = MaskConninfoPassword(conninfo);
  std::vector<std::string> secrets;
  for (size_t i = 0; i < masked.size();) {
    if (masked[i] != kMask) {
      ++i;
      continue;
    }
    size_t end = i;
    bool changed = false;
    while (end < masked.size() && masked[end] == kMask) {
      changed = changed || conninfo[end] != kMask;
      ++end;
    }
    if (changed) {
      const std::string_view raw = conninfo.substr(i, end - i);
      secrets.emplace_back(raw);
      secrets.push_back(PercentDecoded(raw));
      secrets.push_back(BackslashUnescaped(raw));
    }
    i = end;
  }
  // The longest first, so that a shorter form does not split a longer one.
  std::sort(secrets.begin(), secrets.end(),
            [](const std::string& a, const std::string& b) {
              return a.size() > b.size();
            });
  std::string out(text);
  for (const std::string& secret : secrets) ReplaceAll(secret, &out);
  return out;
}

void MaskPasswordsInArgv(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string masked = MaskArgumentPassword(argv[i]);
    if (masked.size() == std::strlen(argv[i])) {
      std::memcpy(argv[i], masked.data(), masked.size());
    }
  }
}

}  // namespace pglayout
