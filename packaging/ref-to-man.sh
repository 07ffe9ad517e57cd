#!/usr/bin/env bash
# Builds one man page from its reference page in docs/ref/ and the built
# binary's own --help, so that the page and the options cannot drift: the
# reference page gives every section (NAME, SYNOPSIS, DESCRIPTION, OPTIONS with
# their full explanations, EXIT STATUS, ...), and the option list that
# `pglayout [COMMAND] --help` prints follows OPTIONS as OPTION SUMMARY.
# packaging/CMakeLists.txt runs it at build time; packaging/check-man.sh tests
# that every option in --help is explained under OPTIONS.
#
#   packaging/ref-to-man.sh BINARY docs/ref/pglayout-migrate.md OUTPUT.1.gz
#       pglayout-migrate(1) from the page and `pglayout migrate --help`
#       (docs/ref/pglayout.md: pglayout(1) and `pglayout --help`).
#
# The Markdown it reads is the small subset the reference pages use: "#"
# (the title, skipped), "##" sections, "###" subsections, "####" an option
# (its paragraphs follow), paragraphs, "- " lists, ``` blocks, | tables |,
# `code`, **bold**, *italic* and [text](link).
set -euo pipefail

die() { printf 'ref-to-man.sh: %s\n' "$*" >&2; exit 1; }

[[ $# -eq 3 ]] || die "usage: ref-to-man.sh BINARY PAGE.md OUTPUT.1.gz"
binary="$1" page="$2" output="$3"
[[ -x "$binary" ]] || die "$binary is not an executable"
[[ -r "$page" ]] || die "cannot read $page"

name="$(basename "$page" .md)"
case "$name" in
  pglayout) command=() ;;
  pglayout-*) command=("${name#pglayout-}") ;;
  *) die "$page: a reference page is named pglayout.md or pglayout-COMMAND.md" ;;
esac

work="$(mktemp -d "${TMPDIR:-/tmp}/pglayout-ref-to-man.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# The help as a user sees it with pglayout on the PATH (argv[0] is the name
# the help prints in "Usage:").
(exec -a pglayout "$binary" "${command[@]}" --help) >"$work/help.txt" ||
  die "'pglayout ${command[*]} --help' failed"
version="$( (exec -a pglayout "$binary" --version) | awk 'NR == 1 { print $2 }')"
[[ -n "$version" ]] || die "'pglayout --version' printed no version"

title="$(tr '[:lower:]' '[:upper:]' <<<"$name")"

awk -v title="$title" -v version="$version" -v help="$work/help.txt" \
  -v command="${command[*]}" '
  # Escapes text for roff: backslashes, hyphens (as minus signs, so that
  # options can be searched and copied), and a leading dot or quote.
  function esc(s) {
    gsub(/\\/, "\\e", s)
    gsub(/-/, "\\-", s)
    return s
  }
  function lead(s) { return (s ~ /^[.\047]/) ? "\\&" s : s }
  # Inline Markdown: `code` in bold, **bold**, *italic*, [text](link) as text.
  function inline(s,    out, n, parts, i, t) {
    # **bold** first, as markers: it may hold `code`.
    while (match(s, /\*\*[^*]+\*\*/))
      s = substr(s, 1, RSTART - 1) "\001" substr(s, RSTART + 2, RLENGTH - 4) "\002" substr(s, RSTART + RLENGTH)
    n = split(s, parts, "`")
    out = ""
    for (i = 1; i <= n; i++) {
      t = parts[i]
      if (i % 2 == 0) { out = out "\\fB" esc(t) "\\fR"; continue }
      while (match(t, /\[[^]]*\]\([^)]*\)/)) {
        link = substr(t, RSTART, RLENGTH)
        sub(/\]\(.*$/, "", link); sub(/^\[/, "", link)
        t = substr(t, 1, RSTART - 1) link substr(t, RSTART + RLENGTH)
      }
      t = esc(t)
      while (match(t, /\*[^* ][^*]*\*/))
        t = substr(t, 1, RSTART - 1) "\\fI" substr(t, RSTART + 1, RLENGTH - 2) "\\fR" substr(t, RSTART + RLENGTH)
      out = out t
    }
    gsub(/\001/, "\\fB", out)
    gsub(/\002/, "\\fR", out)
    return out
  }
  function flush_para() {
    if (para == "") return
    if (section == "NAME") {
      # "pglayout-plan - what it does": the whatis line.
      print lead(esc(para))
    } else {
      if (!in_option) print ".PP"
      else if (option_paras > 0) print ".IP"
      print lead(inline(para))
    }
    if (in_option) option_paras++
    para = ""
  }
  function flush_list() {
    if (item == "") return
    print (in_option ? ".RS\n" : "") ".IP \\(bu 2"
    print lead(inline(item))
    if (in_option) print ".RE"
    item = ""
  }
  function flush_table(    i, j, n, cells, w, line, c) {
    if (rows == 0) return
    for (j = 1; j <= 20; j++) w[j] = 0
    for (i = 1; i <= rows; i++) {
      n = split(row[i], cells, "|")
      for (j = 2; j < n; j++) {
        c = cells[j]; gsub(/^ +| +$/, "", c); gsub(/`|\*\*/, "", c)
        gsub(/\[|\]\([^)]*\)/, "", c)
        cell[i, j] = c
        if (length(c) > w[j]) w[j] = length(c)
      }
      ncol[i] = n
    }
    print ".PP"; print ".nf"
    for (i = 1; i <= rows; i++) {
      line = ""
      for (j = 2; j < ncol[i]; j++)
        line = line sprintf(j < ncol[i] - 1 ? "%-" w[j] "s  " : "%s", cell[i, j])
      print lead(esc(line))
    }
    print ".fi"
    rows = 0
  }
  function flush_all() { flush_para(); flush_list(); flush_table() }
  # The generated option list, after the OPTIONS section.
  function summary(    line) {
    if (summarized) return
    summarized = 1
    print ".SH \"OPTION SUMMARY\""
    print ".PP"
    print "As \\fBpglayout" (command == "" ? "" : " " esc(command)) " \\-\\-help\\fR prints it:"
    print ".PP"; print ".nf"
    while ((getline line < help) > 0) print lead(esc(line))
    close(help)
    print ".fi"
  }
  BEGIN {
    print ".\\\" Generated by packaging/ref-to-man.sh from docs/ref/ and --help; do not edit."
    printf ".TH %s 1 \"\" \"pglayout %s\" \"pglayout Manual\"\n", esc(title), version
  }
  in_code {
    if ($0 ~ /^```/) { in_code = 0; print ".fi"; if (in_option) print ".RE"; next }
    print lead(esc($0)); next
  }
  /^```/ {
    flush_all()
    if (in_option) print ".RS"
    print ".PP"; print ".nf"; in_code = 1; next
  }
  /^# / { next }
  /^## / {
    flush_all()
    if (section == "OPTIONS") summary()
    section = toupper(substr($0, 4)); in_option = 0
    print ".SH \"" esc(section) "\""
    next
  }
  /^### / { flush_all(); in_option = 0; print ".SS \"" esc(substr($0, 5)) "\""; next }
  /^#### / {
    flush_all(); in_option = 1; option_paras = 0
    print ".TP"; print lead(inline(substr($0, 6))); next
  }
  /^\|/ {
    flush_para(); flush_list()
    if ($0 ~ /^\|[-:| ]+\|$/) next
    row[++rows] = $0; next
  }
  /^- / { flush_all(); item = substr($0, 3); next }
  /^$/ { flush_all(); next }
  {
    line = $0
    if (item != "" && line ~ /^  +/) { sub(/^ +/, "", line); item = item " " line; next }
    flush_table()
    sub(/^ +/, "", line)
    para = (para == "") ? line : para " " line
  }
  END {
    flush_all()
    if (!summarized) summary()
  }
' "$page" >"$work/page.1"

grep -q '^\.SH "SYNOPSIS"' "$work/page.1" || die "$page has no Synopsis section"
gzip -9n <"$work/page.1" >"$output.tmp"
mv "$output.tmp" "$output"
