#!/bin/sh
# Writes the feedprof(1) man page from the built CLI's own help, so the page
# says exactly what `feedprof --help` says and never drifts from the options.
# The commands are read from the "Subcommands:" section of the root help: a
# new command gets its own section without touching this script.
#   tools/make_man_page.sh FEEDPROF_BINARY OUT
# Set SOURCE_DATE_EPOCH to date the page; without it the date is left out, so
# the same build gives the same bytes.
set -eu

usage() {
  echo "usage: tools/make_man_page.sh FEEDPROF_BINARY OUT" >&2
  exit 2
}
[ "$#" -eq 2 ] || usage
feedprof="$1"
out="$2"
[ -x "$feedprof" ] || {
  echo "make_man_page.sh: $feedprof is not an executable" >&2
  exit 1
}

root_help="$("$feedprof" --help)"
version="$("$feedprof" --version)"
version="${version#feedprof }"

# "  name   description" lines between "Subcommands:" and the next blank line.
commands="$(printf '%s\n' "$root_help" | awk '
  /^Subcommands:/ { in_list = 1; next }
  in_list && /^[[:space:]]*$/ { exit }
  in_list { print $1 }')"
[ -n "$commands" ] || {
  echo "make_man_page.sh: no Subcommands: section in '$feedprof --help'" >&2
  exit 1
}

# Text for roff: backslashes become \e, minus signs \- (so options copy as
# ASCII hyphens), and a line that starts with . or ' (a request) is guarded
# with \&.
escape() {
  sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"
}

# The paragraph after the usage line: what the program or command does.
description() {
  awk 'NR > 1 && /^[[:space:]]*$/ { if (started) exit; next }
       NR > 1 { started = 1; print }'
}

# A command's "Exit codes:" or "Exit status:" paragraph, without the label.
exit_paragraph() {
  awk '/^Exit (codes|status):/ { found = 1; sub(/^Exit (codes|status): */, "") }
       found && /^[[:space:]]*$/ { exit }
       found { print }'
}

command_summary() {
  printf '%s\n' "$root_help" | awk -v name="$1" '
    /^Subcommands:/ { in_list = 1; next }
    in_list && $1 == name { sub(/^[[:space:]]*[^[:space:]]+[[:space:]]+/, ""); print; exit }'
}

tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT
{
  date_field=""
  if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
    date_field="$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)"
  fi
  printf '.TH FEEDPROF 1 "%s" "feedprof %s" "User Commands"\n' \
    "$date_field" "$version"
  echo '.nh'

  echo '.SH NAME'
  name_line="$(printf '%s\n' "$root_help" | description | tr '\n' ' ' |
    sed -e 's/ *$//' -e 's/\.$//')"
  first="$(printf '%s' "$name_line" | cut -c1 | tr '[:upper:]' '[:lower:]')"
  printf 'feedprof \\- %s%s\n' "$first" "$(printf '%s' "$name_line" | cut -c2- | escape)"

  echo '.SH SYNOPSIS'
  for command in $commands; do
    synopsis="$("$feedprof" "$command" --help | sed -n '1s/^usage: *//p')"
    printf '.B %s\n' "$(printf '%s' "${synopsis%% *}" | escape)"
    printf '%s\n.br\n' "$(printf '%s' "${synopsis#* }" | escape)"
  done
  echo '.B feedprof'
  echo '\-\-version | \-\-help'

  echo '.SH DESCRIPTION'
  printf '%s\n' "$root_help" | description | escape
  echo '.PP'
  echo 'Commands:'
  for command in $commands; do
    echo '.TP'
    printf '.B %s\n' "$(printf '%s' "$command" | escape)"
    command_summary "$command" | escape
  done
  echo '.PP'
  echo 'Each command is described in its own section below, with the text'
  echo 'that'
  echo '.B feedprof'
  echo '.I command'
  echo '\-\-help'
  echo 'prints.'

  echo '.SH OPTIONS'
  echo '.nf'
  printf '%s\n' "$root_help" | awk '
    /^Options:/ { in_list = 1; next }
    in_list && /^[[:space:]]*$/ { exit }
    in_list { print }' | escape
  echo '.fi'

  for command in $commands; do
    printf '.SH "FEEDPROF %s"\n' \
      "$(printf '%s' "$command" | tr '[:lower:]' '[:upper:]' | escape)"
    command_summary "$command" | escape
    echo '.PP'
    echo '.in +4n'
    echo '.nf'
    "$feedprof" "$command" --help | escape
    echo '.fi'
    echo '.in'
  done

  echo '.SH ENVIRONMENT'
  echo '.TP'
  echo '.B FEEDPROF_LIBRARY'
  echo 'The libfeedprof.so that'
  echo '.B feedprof record'
  echo 'preloads; by default the one in the lib/, lib64/ or lib/<multiarch>/'
  echo "directory beside the binary's bin/."
  echo '.TP'
  echo '.B FEEDPROF_*'
  echo 'Variables that configure recording inside the profiled program: output'
  echo 'directory,'
  echo 'sampling rate, buffer sizes, flush interval, log level, CUPTI and NVML.'
  echo 'The full list, with defaults, is in recording.md and cupti.md in the'
  echo 'feedprof documentation directory (/usr/share/doc/feedprof/ when'
  echo 'installed from the Debian package; docs/ in the sources).'

  echo '.SH EXIT STATUS'
  echo '.TP'
  echo '.B feedprof \-\-help, \-\-version'
  echo '0.'
  echo '.TP'
  echo '.B feedprof'
  echo 'without a command, or with an unknown command or option: 2.'
  for command in $commands; do
    paragraph="$("$feedprof" "$command" --help | exit_paragraph)"
    [ -n "$paragraph" ] || continue
    echo '.TP'
    printf '.B feedprof %s\n' "$(printf '%s' "$command" | escape)"
    printf '%s\n' "$paragraph" | escape
  done

  echo '.SH SEE ALSO'
  echo 'README.md, install.md, recording.md, trace-format.md, verdict-rules.md'
  echo 'and report-json.md in the feedprof documentation directory.'
} >"$tmp"
mv "$tmp" "$out"
trap - EXIT
