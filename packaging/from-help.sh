#!/usr/bin/env bash
# Generates pglayout's bash completion from the built binary's own help, so
# that it cannot drift from the options (packaging/CMakeLists.txt runs it at
# build time; the man pages come from packaging/ref-to-man.sh).
#
#   packaging/from-help.sh completion BINARY OUTPUT
#       bash completion of the subcommands, their options and the values of
#       options with a fixed set of choices.
set -euo pipefail

die() { printf 'from-help.sh: %s\n' "$*" >&2; exit 1; }

[[ $# -eq 3 ]] || die "usage: from-help.sh completion BINARY OUTPUT"
mode="$1" binary="$2" output="$3"
[[ -x "$binary" ]] || die "$binary is not an executable"
[[ "$mode" == completion ]] || die "unknown mode '$mode' (completion)"

work="$(mktemp -d "${TMPDIR:-/tmp}/pglayout-from-help.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# The help of `pglayout ARGS... --help`, as a user sees it when pglayout is
# on the PATH (argv[0] is the name CLI11 prints in "Usage:"), with CLI11's
# "-o,--output" spelt "-o, --output".
help_of() {
  (exec -a pglayout "$binary" "$@" --help) | sed -E 's/^(  -[[:alnum:]]),(--)/\1, \2/' ||
    die "'pglayout $* --help' failed"
}

help_of >"$work/main.txt"
# The subcommands: the first word of each line of the "Subcommands:" block.
mapfile -t subcommands < <(awk '
  /^Subcommands:$/ { in_block = 1; next }
  in_block && /^$/ { exit }
  in_block && /^  [^ ]/ { print $1 }' "$work/main.txt")
[[ ${#subcommands[@]} -gt 0 ]] || die "no subcommands in 'pglayout --help'"

# The main help's footer (what follows the subcommand list); a subcommand's
# help may repeat it at its end, where it is left out here.
footer="$(awk '
  /^Subcommands:$/ { state = 1; next }
  state == 1 && /^$/ { state = 2; next }
  state == 2 && /^$/ && !started { next }
  state == 2 { started = 1; print }' "$work/main.txt")"
for sub in "${subcommands[@]}"; do
  text="$(help_of "$sub")"
  if [[ -n "$footer" && "$text" == *"$footer" ]]; then
    text="${text%"$footer"}"
  fi
  printf '%s\n' "$text" >"$work/sub-$sub.txt"
done

# --- bash completion ---------------------------------------------------------

# The options of one help text, one per line: FLAGS<tab>KIND<tab>CHOICES,
# FLAGS space-separated ("-o --output"), KIND flag (takes no value), number,
# choice (CHOICES lists them) or value (anything else: completes file names).
# A line "positional" when the command takes positional arguments.
parse_options() {
  # An option is "  -o, --output=FILE  ..." or "      --apply  ...": the
  # value's placeholder after "=", its choices spelt "a|b|c" in lower case.
  awk '
    /^[A-Z][A-Za-z ]*:$/ { block = $0; next }
    block != "" && /^$/ { block = ""; next }
    block == "Arguments:" && /^  [^ ]/ { positional = 1; next }
    block != "" && block != "Subcommands:" && /^(  |      )-/ {
      line = $0; sub(/^ +/, "", line)
      gap = index(line, "  ")
      if (gap) line = substr(line, 1, gap - 1)
      gsub(/, -/, ",-", line)
      eq = index(line, "=")
      flags = eq ? substr(line, 1, eq - 1) : line
      value = eq ? substr(line, eq + 1) : ""
      gsub(/,/, " ", flags)
      kind = "flag"; choices = ""
      if (value != "") {
        kind = "value"
        if (value ~ /^(N|MBPS|IOPS|FRACTION|SHARE|PORT)$/) kind = "number"
        if (value ~ /^[a-z_]+(\|[a-z_]+)+$/) {
          kind = "choice"
          choices = value; gsub(/\|/, " ", choices)
        }
      }
      printf "%s\t%s\t%s\n", flags, kind, choices
    }
    END { if (positional) print "positional" }
  ' "$1"
}

# The case arms for one command ("" for pglayout itself): the options that
# take a value and what completes it.
value_arms() {
  local sub="$1" file="$2" flags kind choices flag pattern
  while IFS=$'\t' read -r flags kind choices; do
    [[ "$flags" == positional || "$kind" == flag ]] && continue
    pattern=""
    for flag in $flags; do pattern+="${pattern:+|}'$sub:$flag'"; done
    case "$kind" in
      choice) printf "    %s) _pglayout_words '%s'; return 0 ;;\n" "$pattern" "$choices" ;;
      number) printf '    %s) COMPREPLY=(); return 0 ;;\n' "$pattern" ;;
      value) printf '    %s) _pglayout_files; return 0 ;;\n' "$pattern" ;;
    esac
  done < <(parse_options "$file")
}

option_words() { parse_options "$1" | awk -F'\t' '$1 != "positional" { printf "%s%s", sep, $1; sep = " " }'; }
takes_positionals() { parse_options "$1" | grep -qx positional; }

make_completion() {
  local sub arms=""
  local lines
  lines="$(value_arms "" "$work/main.txt")"
  [[ -z "$lines" ]] || arms+="$lines"$'\n'
  for sub in "${subcommands[@]}"; do
    lines="$(value_arms "$sub" "$work/sub-$sub.txt")"
    [[ -z "$lines" ]] || arms+="$lines"$'\n'
  done
  {
    cat <<EOF
# bash completion for pglayout(1)                          -*- shell-script -*-
# Generated at build time from \`pglayout --help\` and \`pglayout SUBCOMMAND
# --help\` by packaging/from-help.sh: change the options in cli/, not here.

_pglayout_words() { mapfile -t COMPREPLY < <(compgen -W "\$1" -- "\$cur"); }
_pglayout_files() {
  compopt -o filenames 2>/dev/null
  mapfile -t COMPREPLY < <(compgen -f -- "\$cur")
}

_pglayout() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" sub="" i
  ((COMP_CWORD > 0)) && prev="\${COMP_WORDS[COMP_CWORD - 1]}"
  # --option=value: bash splits it at the "=".
  if [[ "\$cur" == "=" ]]; then
    cur="" prev="\${COMP_WORDS[COMP_CWORD - 2]}"
  elif [[ "\$prev" == "=" ]] && ((COMP_CWORD > 1)); then
    prev="\${COMP_WORDS[COMP_CWORD - 2]}"
  fi
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in
      $(IFS='|'; echo "${subcommands[*]}")) sub="\${COMP_WORDS[i]}"; break ;;
    esac
  done

  # The value of an option.
  case "\$sub:\$prev" in
${arms}  esac

  local options positionals=""
  case "\$sub" in
    "") options="$(option_words "$work/main.txt")" ;;
EOF
    for sub in "${subcommands[@]}"; do
      local p=""
      takes_positionals "$work/sub-$sub.txt" && p=' positionals=1'
      printf '    %s) options="%s"%s ;;\n' "$sub" "$(option_words "$work/sub-$sub.txt")" "$p"
    done
    cat <<EOF
  esac
  if [[ "\$cur" == -* ]]; then
    _pglayout_words "\$options"
  elif [[ -z "\$sub" ]]; then
    _pglayout_words "${subcommands[*]}"
  elif [[ -n "\$positionals" ]]; then
    _pglayout_files
  else
    _pglayout_words "\$options"
  fi
  return 0
}
complete -F _pglayout pglayout
EOF
  } >"$output.tmp"
  bash -n "$output.tmp" || die "the generated completion is not valid bash"
  mv "$output.tmp" "$output"
}

"make_$mode"
