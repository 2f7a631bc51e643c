#!/bin/bash
# gen-man.sh SONDE OUTDIR: sonde(1) and sonde-CMD(1) for every command of SONDE's
# table, as scdoc sources (OUTDIR/NAME.1.scd) rendered by scdoc (OUTDIR/NAME.1).
# NAME, SYNOPSIS and OPTIONS come from the binary (`sonde help --dump-options`,
# the tables its --help prints), the DESCRIPTION and any later sections from
# man/NAME.scd (man/README.md); a command without one gets its one-line help.
set -eo pipefail
sonde=$1 out=$2
src=$(cd "$(dirname "$0")/../man" && pwd)
[ -x "$sonde" ] && [ -n "$out" ] || { echo "usage: gen-man.sh SONDE OUTDIR" >&2; exit 2; }
command -v scdoc >/dev/null || { echo "gen-man.sh: scdoc is missing (Debian package scdoc)" >&2; exit 1; }
mkdir -p "$out"
version=$("$sonde" --version | awk '{print $3}')

esc() { sed -e 's/\\/\\\\/g' -e 's/\*/\\*/g' -e 's/_/\\_/g' -e 's/^\([\t ]*\)-/\1\\-/'; }

# the rows of one --dump-options as OPTIONS (groups become subsections); other
# lines (notes printed after the table) go to $notes
options() {
	awk -F'\t' -v notes="$1" '
	function esc(s) { gsub(/\\/, "\\\\", s); gsub(/\*/, "\\*", s); gsub(/_/, "\\_", s); sub(/^-/, "\\-", s); return s }
	$1 == "usage" { next }
	$1 == "group" { printf "## %s\n\n", esc($2); next }
	$1 == "option" {
		line = ""
		if ($3 != "") line = "*" $3 "*"
		if ($4 != "") line = line (line != "" ? ", " : "") "*" esc($4) "*"
		if ($2 == "arg") line = line " _" esc($5) "_"
		if ($2 == "optarg") line = line "[=_" esc($5) "_]"
		help = $6; if (help == "") help = "(no description)"
		printf "%s\n\t%s\n\n", line, esc(help)
		next
	}
	{ print esc($0) >>notes }'
}

# usage lines, from dump rows or from a help text's "usage:"/"or:" lines
synopsis() {
	sed -n -e 's/^usage\t//p' -e 's/^usage: //p' -e 's/^   or: //p' | esc |
		sed -e 's/^sonde \([a-z0-9]*\)\( [a-z][a-z]*\)\{0,1\}\( \|$\)/*sonde \1\2*\3/' -e 'a\\'
}

page() {	# NAME CMD HELP
	local name=$1 cmd=$2 help=$3 dump notes=$out/.notes.$$ sub subs hand=$src/$1.scd
	dump=$("$sonde" help --dump-options $cmd)
	rm -f "$notes"
	{
		printf '%s(1) "sonde %s"\n\n# NAME\n\n%s - %s\n\n# SYNOPSIS\n\n' "$name" "$version" "$name" "$(esc <<<"$help")"
		synopsis <<<"$dump"
		printf '# DESCRIPTION\n\n'
		if [ -r "$hand" ]; then sed '/^# /,$d' "$hand"; else esc <<<"$help."; fi
		printf '\n'
		if grep -q $'^option\t' <<<"$dump"; then
			printf '# OPTIONS\n\n'
			options "$notes" <<<"$dump"
		fi
		# a command with subcommands (sched): each one's options
		subs=$(grep -q $'^usage\t' <<<"$dump" ||
			sed -n -e "s/^\(usage:\|   or:\) sonde $cmd \([a-z][a-z]*\)\( .*\)\{0,1\}$/\2/p" <<<"$dump")
		for sub in $subs; do
			printf '# %s OPTIONS\n\n' "$(tr a-z A-Z <<<"$sub")"
			synopsis <<<"$("$sonde" help --dump-options $cmd $sub)"
			options /dev/null <<<"$("$sonde" help --dump-options $cmd $sub)"
		done
		if [ -s "$notes" ]; then printf '# NOTES\n\n'; cat "$notes"; printf '\n'; fi
		if [ "$cmd" = tool ]; then	# the tools, each with its page
			printf '# TOOLS\n\n'
			"$sonde" tools -q 2>/dev/null | awk -v names=" $("$sonde" tools --names | tr '\n' ' ') " '
				function esc(s) { gsub(/\\/, "\\\\", s); gsub(/\*/, "\\*", s); gsub(/_/, "\\_", s); return s }
				{ d = $0; sub(/^[^ ]+ +[^ ]+ +/, "", d)
				  printf "*%s*%s\n\t%s\n\n", $1, index(names, " " $1 " ") ? "(1)" : "", esc(d) }'
		fi
		[ -r "$hand" ] && sed -n '/^# /,$p' "$hand"
		printf '# SEE ALSO\n\n*sonde*(1)\n'
	} >"$out/$name.1.scd"
	rm -f "$notes"
}

cmds=$("$sonde" help --dump-options)
while IFS=$'\t' read -r _ cmd _ help; do
	page "sonde-$cmd" "$cmd" "$help"
done <<<"$cmds"

# a BCC tool's page (NAME.1, for `man execsnoop`) from its argparse-style --help:
# usage, the description, positional arguments, options, examples
tool_page() {
	local h
	h=$("$sonde" tool "$1" --help)
	if [[ $h =~ ^usage:\ sonde\ ([a-z]+) ]]; then	# a sonde command under BCC's name (memleak)
		printf '.so man1/sonde-%s.1\n' "${BASH_REMATCH[1]}" >"$out/$1.1"
		return
	fi
	awk -v name="$1" -v version="$version" '
	function esc(s) { gsub(/\\/, "\\\\", s); gsub(/\*/, "\\*", s); gsub(/_/, "\\_", s); sub(/^-/, "\\-", s); return s }
	function flush() { if (spec != "") printf "%s\n\t%s\n\n", spec, esc(help == "" ? "(no description)" : help); spec = help = "" }
	NR == 1 { sub(/^usage: /, ""); usage = $0; next }
	sect == "" && /^ / && usage != "" && desc == "" { sub(/^ +/, ""); usage = usage " " $0; next }
	/^$/ { if (sect == "desc" || sect == "") { if (desc != "") sect = "after" } ; next }
	/^[a-z][a-z ]*:$/ {
		flush()
		if (!header) {
			header = 1
			printf "%s(1) \"sonde %s\"\n\n# NAME\n\n%s - %s\n\n# SYNOPSIS\n\n*%s*%s\n\n", name, version, name, esc(desc), name, esc(substr(usage, length(name) + 1))
			printf "# DESCRIPTION\n\n%s. One of the BCC tools sonde carries: *%s* runs it, as do *sonde tool %s* and *sonde %s*; it takes BCC'"'"'s options and prints BCC'"'"'s output.\n\n", esc(toupper(substr(desc, 1, 1)) substr(desc, 2)), name, name, name
		}
		if ($0 == "examples:") { sect = "ex"; printf "# EXAMPLES\n\n```\n"; next }
		sect = "opts"; printf "# %s\n\n", toupper(substr($0, 1, length($0) - 1)); next
	}
	sect == "" || sect == "desc" { sect = "desc"; desc = desc (desc == "" ? "" : " ") $0; next }
	sect == "ex" { sub(/^    /, ""); print; next }
	sect == "opts" && /^  [^ ]/ {
		flush(); line = substr($0, 3); i = index(line, "  ")
		sp = i ? substr(line, 1, i - 1) : line; help = i ? substr(line, i) : ""; sub(/^ +/, "", help)
		n = split(sp, parts, ", "); spec = ""
		for (k = 1; k <= n; k++) { m = split(parts[k], w, " "); spec = spec (k > 1 ? ", " : "") "*" esc(w[1]) "*" (m > 1 ? " _" esc(w[2]) "_" : "") }
		next
	}
	sect == "opts" && /^   / { sub(/^ +/, ""); help = help (help == "" ? "" : " ") $0; next }
	END { flush(); if (sect == "ex") print "```\n"; printf "# SEE ALSO\n\n*sonde-tool*(1), *sonde-tools*(1), *sonde*(1)\n" }
	' <<<"$h" >"$out/$1.1.scd"
}
for t in $("$sonde" tools --names); do tool_page "$t"; done

# the hub: man/sonde.scd with the command table at @COMMANDS@
awk -F'\t' 'function esc(s) { gsub(/\\/, "\\\\", s); gsub(/\*/, "\\*", s); gsub(/_/, "\\_", s); return s }
	$3 == "listed" { printf "*%s*\n\t%s. See *sonde-%s*(1).\n\n", $2, esc($4), $2 }' <<<"$cmds" >"$out/.commands"
sed -e "1s/\$/ \"sonde $version\"/" -e "/^@COMMANDS@\$/{r $out/.commands" -e 'd}' "$src/sonde.scd" >"$out/sonde.1.scd"
rm -f "$out/.commands"

# scdoc's paragraph macros where they do nothing (after a heading, before one,
# twice, at the end) are dropped, and one that ends an indented block moves after
# its .RE: the page reads the same, and neither groff -ww nor mandoc -T lint warns
tidy() {
	awk '{ line[NR] = $0 }
	END {
		for (i = 1; i < NR; i++)
			if (line[i] == ".P" && line[i + 1] == ".RE") { line[i] = ".RE"; line[i + 1] = ".P" }
		for (i = 1; i <= NR; i++)
			if (!(line[i] == ".P" && (line[i - 1] ~ /^\.(SH|SS|P|TH)( |$)/ ||
						  line[i + 1] ~ /^\.(SH|SS|P|RE)( |$)/ || i == NR)))
				print line[i]
	}'
}
for f in "$out"/*.1.scd; do
	scdoc <"$f" | tidy >"${f%.scd}"
done
