#!/usr/bin/env bash
# Generates pglayout's man page and bash completion from the built binary's
# own help, so that neither can drift from the options (cli/CMakeLists.txt
# runs it at build time; Debian's help2man writes the man page).
#
#   packaging/from-help.sh man BINARY OUTPUT.1.gz
#       pglayout(1): `pglayout --help` through help2man, with a section per
#       subcommand (`pglayout SUB --help` of every subcommand that
#       `pglayout --help` lists), gzip-compressed as Debian installs man pages.
#   packaging/from-help.sh completion BINARY OUTPUT
#       bash completion of the subcommands, their options and the values of
#       options with a fixed set of choices.
set -euo pipefail

die() { printf 'from-help.sh: %s\n' "$*" >&2; exit 1; }

[[ $# -eq 3 ]] || die "usage: from-help.sh man|completion BINARY OUTPUT"
mode="$1" binary="$2" output="$3"
[[ -x "$binary" ]] || die "$binary is not an executable"
case "$mode" in man | completion) ;; *) die "unknown mode '$mode' (man or completion)" ;; esac

work="$(mktemp -d "${TMPDIR:-/tmp}/pglayout-from-help.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# The help of `pglayout ARGS... --help`, as a user sees it when pglayout is
# on the PATH (argv[0] is the name CLI11 prints in "Usage:"), with CLI11's
# "-o,--output" spelt "-o, --output" as help2man and man pages expect.
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
# help may repeat it at its end, where the man page leaves it out.
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

# --- man page ----------------------------------------------------------------

# One subcommand's help as roff: its Options and Positionals as tagged
# paragraphs (as help2man renders the main options), other paragraphs filled,
# or kept as they are when indented (tables, the Oracle query).
sub_to_roff() {
  awk -v sub_name="$1" '
    function esc(s,    out, i, c) {
      out = ""
      for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "\\") c = "\\e"
        else if (c == "-") c = "\\-"
        out = out c
      }
      if (out ~ /^[.\047]/) out = "\\&" out
      return out
    }
    function term(t,    flags, rest, n, parts, i, out) {
      gsub(/, -/, ",-", t)
      n = index(t, "=")
      if (!n) n = index(t, " ")
      flags = n ? substr(t, 1, n - 1) : t
      rest = n ? substr(t, n + 1) : ""
      n = split(flags, parts, ",")
      out = ""
      for (i = 1; i <= n; i++) {
        sub(/^ +/, "", parts[i])
        out = out (i > 1 ? ", " : "") "\\fB" esc(parts[i]) "\\fR"
      }
      if (rest != "") out = out " \\fI" esc(rest) "\\fR"
      return out
    }
    function flush(    i, indented) {
      if (n_para == 0) return
      indented = 0
      for (i = 1; i <= n_para; i++) if (para[i] ~ /^ /) indented = 1
      print ".PP"
      if (indented) print ".nf"
      for (i = 1; i <= n_para; i++) print esc(para[i])
      if (indented) print ".fi"
      n_para = 0
    }
    NR == 1 { print esc($0); next }
    /^Usage: / {
      flush()
      line = substr($0, 8)
      print ".PP"
      print "Usage: \\fB" esc("pglayout " sub_name) "\\fR" esc(substr(line, length("pglayout " sub_name) + 1))
      next
    }
    /^[A-Z][A-Za-z ]*:$/ { flush(); in_list = 1; print ".PP"; print "\\fB" $0 "\\fR"; next }
    in_list && /^$/ { in_list = 0; next }
    in_list && /^(  |      )[^ ]/ {
      line = $0; sub(/^ +/, "", line)
      gap = index(line, "  ")
      print ".TP"
      if (gap) {
        print term(substr(line, 1, gap - 1))
        desc = substr(line, gap); sub(/^ +/, "", desc)
        print esc(desc)
      } else {
        print term(line)
      }
      next
    }
    in_list && /^ +[^ ]/ { line = $0; sub(/^ +/, "", line); print esc(line); next }
    /^$/ { flush(); next }
    { para[++n_para] = $0 }
    END { flush() }
  ' "$work/sub-$1.txt"
}

make_man() {
  command -v help2man >/dev/null || die "help2man is missing: run scripts/setup (apt-get install help2man)"
  local version name
  version="$( (exec -a pglayout "$binary" --version) | awk 'NR == 1 { print $2 }')"
  [[ -n "$version" ]] || die "'pglayout --version' printed no version"
  # NAME: the first line of the help, without its "pglayout: " and final dot.
  name="$(sed -n '1{s/^pglayout: *//;s/\.$//;p}' "$work/main.txt")"

  {
    echo "[SUBCOMMANDS]"
    echo "Each subcommand takes options of its own, after its name;"
    echo "\\fBpglayout\\fR \\fISUBCOMMAND\\fR \\fB\\-\\-help\\fR prints its section below."
    for sub in "${subcommands[@]}"; do
      echo ".SS \"pglayout $sub\""
      sub_to_roff "$sub"
    done
    echo "[SEE ALSO]"
    echo "The worked examples and the cloud volume catalog of"
    echo ".B pglayout plan \\-\\-catalog"
    echo "are installed in share/doc/pglayout/examples under the installation prefix"
    echo "(/usr/share/doc/pglayout/examples from the Debian package)."
  } >"$work/include.h2m"

  # help2man runs "pglayout --help" (its version is given): this pglayout
  # prints the help captured in main.txt.
  mkdir "$work/bin"
  printf '#!/bin/bash\nexec cat %q\n' "$work/main.txt" >"$work/bin/pglayout"
  chmod +x "$work/bin/pglayout"
  PATH="$work/bin:$PATH" help2man --no-info --no-discard-stderr \
    --version-string="$version" --name="$name" --section=1 \
    --include="$work/include.h2m" --output="$work/pglayout.1" pglayout ||
    die "help2man failed"
  gzip -9n <"$work/pglayout.1" >"$output.tmp"
  mv "$output.tmp" "$output"
}

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
