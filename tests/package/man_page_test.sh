#!/usr/bin/env bash
# tools/make_man_page.sh on a stand-in CLI whose help holds what roff would
# misread (lines that start with a dot or a quote, backslashes, minus signs)
# and a command list the script has never seen: every listed command gets a
# section, its exit paragraph lands in EXIT STATUS, and groff shows the text
# exactly as the CLI printed it.
#
#   man_page_test.sh MAKE_MAN_PAGE
set -euo pipefail
make_man_page="$1"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v groff >/dev/null || { echo "SKIP: no groff"; exit 77; }

work="$(mktemp -d -t feedprof-man-page-test.XXXXXX)"
trap '[[ -n "${KEEP_WORK:-}" ]] || rm -rf "$work"' EXIT

cat >"$work/feedprof" <<'STUB'
#!/bin/sh
case "$*" in
  --version) echo "feedprof 9.8.7" ;;
  --help) cat <<'HELP'
usage: feedprof <command> [options]

Does one thing, then another.

Options:
  --version                 Print the version and exit

Subcommands:
  alpha                     the first command
  beta-two                  the second command

Run 'feedprof <command> --help' for the options of one command.
HELP
  ;;
  "alpha --help") cat <<'HELP'
usage: feedprof alpha PATH [--level N]

.starts with a dot
'starts with a quote
a back\slash, C:\temp\new and \fBnot bold\fR

Exit codes: 0 read, 3 odd
input, 2 usage error.
HELP
  ;;
  "beta-two --help") printf 'usage: feedprof beta-two\n\nNo exit paragraph here.\n' ;;
  *) exit 2 ;;
esac
STUB
chmod +x "$work/feedprof"

sh "$make_man_page" "$work/feedprof" "$work/feedprof.1"
groff -man -Tutf8 -ww "$work/feedprof.1" 2>"$work/groff.err" | sed 's/.\x08//g' >"$work/page.txt"
[[ ! -s "$work/groff.err" ]] || { cat "$work/groff.err"; fail "groff warned"; }
expect() {  # PATTERN WHAT
  grep -qF -- "$1" "$work/page.txt" || { cat "$work/page.txt"; fail "$2"; }
}
expect '.starts with a dot' "a line starting with . was taken as a request"
expect "'starts with a quote" "a line starting with ' was taken as a request"
expect 'a back\slash, C:\temp\new and \fBnot bold\fR' "backslashes were not kept"
expect 'feedprof beta-two' "the second command is missing from the synopsis"
expect 'feedprof alpha PATH [--level N]' "the synopsis lost the usage line or its minus signs"
expect 'feedprof - does one thing, then another' "the NAME line is not the root description"
expect 'feedprof 9.8.7' "the version is not in the footer"
for heading in "FEEDPROF ALPHA" "FEEDPROF BETA-TWO" "EXIT STATUS" ENVIRONMENT; do
  grep -qx "$heading" "$work/page.txt" || { cat "$work/page.txt"; fail "no $heading section"; }
done
# The exit paragraph of alpha, joined, under EXIT STATUS; beta-two has none.
sed -n '/^EXIT STATUS$/,/^SEE ALSO$/p' "$work/page.txt" | tr -s ' \n' ' ' >"$work/exit.txt"
grep -qF 'feedprof alpha 0 read, 3 odd input, 2 usage error.' "$work/exit.txt" \
  || { cat "$work/exit.txt"; fail "alpha's exit codes are not under EXIT STATUS"; }
! grep -qF 'feedprof beta-two' "$work/exit.txt" || fail "beta-two has an EXIT STATUS entry it never printed"
# Hyphens in the page are ASCII minus signs, so options copy as typed.
grep -q 'beta\\-two' "$work/feedprof.1" || fail "'-' is not written as \\-"

# A CLI whose help has no command list is refused, and OUT is not written.
printf '#!/bin/sh\necho "usage: feedprof"\n' >"$work/broken"
chmod +x "$work/broken"
rc=0
sh "$make_man_page" "$work/broken" "$work/broken.1" 2>"$work/broken.err" || rc=$?
((rc == 1)) || fail "a help without Subcommands: exited $rc, expected 1"
[[ ! -e "$work/broken.1" ]] || fail "a refused page was still written"
grep -q 'no Subcommands: section' "$work/broken.err" || fail "the refusal does not say why"
echo "PASS: man page from a stand-in CLI"
