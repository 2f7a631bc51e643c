#!/bin/sh
# gen-commit.sh: the header naming the commit sonde is built from (sonde --version).
# In a git checkout, git's HEAD (with "-dirty" when tracked files changed); in a
# tarball made by `git archive`, the file COMMIT, which git fills in there
# (.gitattributes: export-subst); otherwise "unknown".
cd "$(dirname "$0")/.." || exit 1
c=unknown
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ] &&
   h=$(git rev-parse --short=12 HEAD 2>/dev/null); then
	c=$h
	git diff --quiet HEAD -- 2>/dev/null || c="$c-dirty"
elif [ -r COMMIT ]; then
	h=$(tr -d '\n' <COMMIT)
	case ${h%-dirty} in *[!0-9a-f]* | '') ;; *) c=$(printf '%.12s' "${h%-dirty}")${h#"${h%-dirty}"} ;; esac
fi
printf '#define SONDE_COMMIT "%s"\n' "$c"
