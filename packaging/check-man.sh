#!/usr/bin/env bash
# Checks the man pages against the binary they document: every command that
# `pglayout --help` lists has its page pglayout-COMMAND(1) (and pglayout(1)),
# `man -l` renders each with its synopsis, and every option that
# `pglayout [COMMAND] --help` prints is explained in the page's OPTIONS
# section (docs/ref/pglayout-COMMAND.md), not only in the generated OPTION
# SUMMARY. Run by ctest (packaging/CMakeLists.txt) and by scripts/test on the
# Debian package.
#
#   packaging/check-man.sh BINARY MANDIR
#       checks MANDIR/pglayout.1.gz and MANDIR/pglayout-COMMAND.1.gz
#   packaging/check-man.sh --self-test BINARY REFDIR
#       builds pglayout-check(1) from REFDIR/pglayout-check.md without its
#       --json entry and exits 0 only if the check above rejects it
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
die() { printf 'check-man.sh: %s\n' "$*" >&2; exit 1; }

if [[ "${1:-}" == "--self-test" ]]; then
  [[ $# -eq 3 ]] || die "usage: check-man.sh --self-test BINARY REFDIR"
  work="$(mktemp -d "${TMPDIR:-/tmp}/pglayout-check-man.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  # The page without the "#### `--json`" entry and its paragraph.
  awk '/^#### `--json`$/ { skip = 1; next } skip && /^#/ { skip = 0 } !skip' \
    "$3/pglayout-check.md" >"$work/pglayout-check.md"
  ! grep -q '^#### `--json`' "$work/pglayout-check.md" || die "the self-test page still explains --json"
  bash "$here/ref-to-man.sh" "$2" "$work/pglayout-check.md" "$work/pglayout-check.1.gz"
  if bash "$here/check-man.sh" --page "$2" "$work/pglayout-check.1.gz" check 2>"$work/err"; then
    die "a page that does not explain --json passed the check"
  fi
  grep -q -- "--json" "$work/err" || { cat "$work/err" >&2; die "the rejection does not name --json"; }
  echo "ok: a page missing an option of --help is rejected: $(head -1 "$work/err")"
  exit 0
fi

# check_page BINARY PAGE COMMAND: one page against `pglayout COMMAND --help`.
check_page() {
  local binary="$1" page="$2" command="$3" text options flag missing=()
  [[ -f "$page" ]] || die "no man page $page for 'pglayout${command:+ $command}'"
  text="$(LC_ALL=C MANWIDTH=200 man -l -P cat "$page" 2>/dev/null)" || die "man -l $page failed"
  grep -q '^SYNOPSIS$' <<<"$text" || die "$page: man shows no SYNOPSIS"
  sed -n '/^SYNOPSIS$/,/^[A-Z]/p' <<<"$text" | grep -qE "^ +pglayout${command:+ $command}( |$)" ||
    die "$page: the SYNOPSIS does not show 'pglayout${command:+ $command}'"
  # The OPTIONS section as man shows it, up to the next section.
  options="$(awk '/^OPTIONS$/ { on = 1; next } on && /^[A-Z]/ { exit } on' <<<"$text")"
  [[ -n "$options" ]] || die "$page: man shows no OPTIONS section"
  # Every option of the help: the first column of each line that starts
  # with an option, split at commas, "=" and blanks.
  for flag in $( (exec -a pglayout "$binary" ${command:+"$command"} --help) |
    sed -nE 's/^ {2,6}(-[^ ].*)$/\1/p' | sed -E 's/   .*//' | tr ',= [' '\n\n\n\n' |
    grep -E '^--?[[:alnum:]][[:alnum:]-]*$' | sort -u); do
    grep -qE -- "(^|[^[:alnum:]-])${flag}([^[:alnum:]-]|$)" <<<"$options" || missing+=("$flag")
  done
  if [[ ${#missing[@]} -gt 0 ]]; then
    echo "$page: options of 'pglayout${command:+ $command} --help' not explained under OPTIONS: ${missing[*]}" >&2
    return 1
  fi
  echo "ok: $(basename "$page"): synopsis shown, every option of --help explained"
}

if [[ "${1:-}" == "--page" ]]; then
  [[ $# -eq 4 ]] || die "usage: check-man.sh --page BINARY PAGE COMMAND"
  check_page "$2" "$3" "$4"
  exit
fi

[[ $# -eq 2 ]] || die "usage: check-man.sh BINARY MANDIR"
binary="$1" mandir="$2"
[[ -x "$binary" ]] || die "$binary is not an executable"
mapfile -t commands < <((exec -a pglayout "$binary" --help) | awk '
  /^(Subcommands|Commands):$/ { in_block = 1; next }
  in_block && /^$/ { exit }
  in_block && /^  [^ ]/ { print $1 }')
[[ ${#commands[@]} -gt 0 ]] || die "no commands in 'pglayout --help'"
status=0
check_page "$binary" "$mandir/pglayout.1.gz" "" || status=1
for command in "${commands[@]}"; do
  check_page "$binary" "$mandir/pglayout-$command.1.gz" "$command" || status=1
done
exit "$status"
