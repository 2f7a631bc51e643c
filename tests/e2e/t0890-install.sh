#!/bin/bash
# Installed like a real tool: the version and its commit, man pages and shell
# completion generated from the option tables (every option of --help in its
# page and its completion, and nothing else), make install/uninstall, and the
# Debian package built, checked by lintian, unpacked and run. The package build
# is a whole build: on a loaded machine it takes minutes (tests/run.sh reads this):
# e2e-timeout: 1800
. "$(dirname "$0")/../lib.sh"

# the commands, and "sched record"... for a command with subcommands
keys() {
	$SONDE help --dump-options | cut -f2 | while read -r c; do
		subs=$($SONDE help --dump-options "$c" | sed -n "s/^\(usage:\|   or:\) sonde $c \([a-z][a-z]*\)\( .*\)\{0,1\}$/\2/p")
		if [ -n "$subs" ] && ! $SONDE help --dump-options "$c" | grep -q "^usage	"; then
			for s in $subs; do echo "$c $s"; done
		else
			echo "$c"
		fi
	done
}
# the options a --help text shows (sonde's layout and argparse's), one a line, sorted
help_opts() {
	sed -n -e 's/^    \(-.*\)/\1/p' -e 's/^  \(-[^ ].*\)/\1/p' | sed 's/  .*//; s/ <[^>]*>//g; s/\[=<[^>]*>\]//' |
		tr ',' '\n' | sed 's/^ *//; s/ .*//' | grep '^-' | sort -u
}
# the options a rendered page lists under its OPTIONS headings (an option line is
# indented 7 and starts with -), one a line, sorted
page_opts() {
	MANWIDTH=200 man -l "$1" 2>/dev/null | col -b |
		awk '/^[A-Z]/ { inopt = ($0 ~ /OPTIONS$/) } inopt && /^       -/' |
		sed 's/^ *//; s/\[=[^]]*\]//' | tr ',' '\n' | sed 's/^ *//; s/ .*//' | grep '^-' | sort -u
}

test_expect_success 'sonde --version names the version and the commit; version --features the capabilities' '
	$SONDE --version >v &&
	grep -Eq "^sonde version [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]{12}(-dirty)?|unknown)\)$" v &&
	if git -C "$ROOT" rev-parse HEAD >/dev/null 2>&1; then
		# the binary names a commit of this repository (the one it was built at)
		h=$(sed -n "s/.*(commit \([0-9a-f]*\).*/\1/p" v) && [ -n "$h" ] &&
		git -C "$ROOT" cat-file -e "$h^{commit}" &&
		"$ROOT/scripts/gen-commit.sh" | grep -q "\"$(git -C "$ROOT" rev-parse --short=12 HEAD)\(-dirty\)\{0,1\}\""
	fi &&
	$SONDE version --features >f &&
	head -1 f | test_cmp v - &&
	grep -Eq "^  zstd +yes " f && grep -Eq "^  dwarf-unwind +yes " f &&
	grep -Eq "^  bpf-skeletons +yes .*offcpu" f && grep -Eq "^  tls +yes " f && grep -Eq "^  serve +yes .*libmicrohttpd" f &&
	$SONDE version >v2 && test_cmp v v2
'

test_expect_success 'a tarball made by git archive knows its commit without .git' '
	git -C "$ROOT" rev-parse HEAD >/dev/null 2>&1 || { echo "not a git checkout: nothing to archive"; exit 0; }
	mkdir arch && git -C "$ROOT" archive HEAD COMMIT scripts/gen-commit.sh | tar -x -C arch &&
	[ ! -e arch/.git ] &&
	arch/scripts/gen-commit.sh >h &&
	printf "#define SONDE_COMMIT \"%s\"\n" "$(git -C "$ROOT" rev-parse --short=12 HEAD)" >expect &&
	test_cmp expect h &&
	rm arch/COMMIT && arch/scripts/gen-commit.sh | grep -q "\"unknown\""
'

test_expect_success 'the package version is sonde version' '
	v=$($SONDE --version | cut -d" " -f3) &&
	head -1 "$ROOT/debian/changelog" | grep -q "^sonde ($v) "
'

test_expect_success 'man pages: one per command and tool, no warning from groff -ww nor mandoc -T lint' '
	"$ROOT/scripts/gen-man.sh" "$SONDE" man &&
	for c in $($SONDE help --dump-options | cut -f2); do
		[ -s "$ROOT/man/sonde-$c.scd" ] || { echo "man/sonde-$c.scd: no description"; exit 1; }
		[ -s man/sonde-$c.1 ] || { echo "no sonde-$c.1"; exit 1; }
	done &&
	for t in $($SONDE tools --names); do [ -s man/$t.1 ] || { echo "no $t.1"; exit 1; }; done &&
	[ -s man/sonde.1 ] &&
	for f in man/*.1; do
		if head -1 "$f" | grep -q "^\.so "; then
			[ -s "man/$(head -1 "$f" | sed "s|^\.so man1/||")" ] || { echo "$f: .so to nothing"; exit 1; }
			continue
		fi
		groff -ww -man -z "$f" 2>>warn
		! command -v mandoc >/dev/null || mandoc -T lint -W warning "$f" >>warn 2>&1
	done &&
	test_cmp /dev/null warn &&
	MANWIDTH=80 man -l man/sonde.1 | col -b >hub &&
	for c in $($SONDE --help | sed -n "s/^   \([a-z0-9]*\) .*/\1/p"); do
		grep -q "^       $c$" hub || { echo "sonde(1) does not list $c"; exit 1; }
	done
'

test_expect_success 'every option of sonde CMD --help is in its page, and no other' '
	"$ROOT/scripts/gen-man.sh" "$SONDE" man &&
	n=0 &&
	keys >keys && while read -r k; do
		$SONDE $k --help | help_opts >want &&
		page_opts man/sonde-${k%% *}.1 >all &&
		if [ "$k" != "${k%% *}" ]; then	# a subcommand: its own section
			MANWIDTH=200 man -l man/sonde-${k%% *}.1 2>/dev/null | col -b |
				awk -v s="$(echo ${k#* } | tr a-z A-Z) OPTIONS" "/^[A-Z]/ { in_ = (\$0 == s) } in_ && /^       -/" |
				sed "s/^ *//" | tr "," "\n" | sed "s/^ *//; s/ .*//" | grep "^-" | sort -u >all
		fi &&
		{ diff -u want all || { echo "in $k"; exit 1; }; } && n=$((n + 1))
	done <keys &&
	[ "$n" -ge 20 ] &&
	for t in $($SONDE tools --names); do
		head -1 man/$t.1 | grep -q "^\.so " && continue
		$SONDE tool $t --help | help_opts >want && page_opts man/$t.1 >got &&
		{ diff -u want got || { echo "in tool $t"; exit 1; }; }
	done
'

# bash completion: call the function as bash does, with COMP_WORDS/COMP_CWORD
cat >"$TMP/complete.sh" <<'EOF'
source "$1"
c() {
	COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
	case ${COMP_WORDS[0]} in sonde) _sonde ;; *) _sonde_tool ;; esac
	printf '%s\n' "${COMPREPLY[@]}" | sort -u
}
EOF

test_expect_success 'bash completion: commands, options, values, subcommands, tools' '
	mkdir bin && ln -s "$SONDE" bin/sonde && export PATH="$TMP/bin:$PATH" &&
	"$ROOT/scripts/gen-completion.sh" "$SONDE" compl && bash -n compl/sonde.bash &&
	. ./complete.sh compl/sonde.bash &&
	c sonde st >got && printf "%s\n" stackcount stat statsnoop >expect && test_cmp expect got &&
	c sonde -v rec >got && echo record >expect && test_cmp expect got &&
	c sonde stat --ev >got && echo --event >expect && test_cmp expect got &&
	c sonde stat -e task-c >got && echo task-clock >expect && test_cmp expect got &&
	c sonde stat -e cpu-clock,task-c >got && echo cpu-clock,task-clock >expect && test_cmp expect got &&
	c sonde sched re >got && printf "%s\n" record replay >expect && test_cmp expect got &&
	c sonde sched record --dur >got && echo --duration >expect && test_cmp expect got &&
	c sonde tool execsn >got && echo execsnoop >expect && test_cmp expect got &&
	c sonde execsnoop --ti >got && printf "%s\n" --time --timestamp >expect && test_cmp expect got &&
	c execsnoop --max >got && echo --max-args >expect && test_cmp expect got &&
	c sonde help fla >got && echo flame >expect && test_cmp expect got &&
	c sonde version -- >got && echo --features >expect && test_cmp expect got &&
	: >file-one.data && c sonde report -i file-o >got && echo file-one.data >expect && test_cmp expect got &&
	c sonde report --input = file-o >got && test_cmp expect got &&
	c sonde stat -- trunca >got && grep -qx truncate got
'

test_expect_success 'bash completion: PIDs after -p, event and tracepoint names split at :' '
	sleep 30 & pid=$!
	export PATH="$TMP/bin:$PATH" && . ./complete.sh compl/sonde.bash &&
	c sonde trace -p $pid >got && grep -qx $pid got &&
	c sonde record -p 1,$pid >got && kill $pid && grep -qx 1,$pid got &&
	if [ -r /sys/kernel/tracing/events/sched/sched_switch/id ] || [ -r /sys/kernel/debug/tracing/events/sched/sched_switch/id ]; then
		c sonde stat -e sched : sched_swi >got && echo sched_switch >expect && test_cmp expect got &&
		c sonde stat --event = sched : sched_swi >got && test_cmp expect got &&
		c sonde probe -l tracepoint : sched : sched_swi >got && test_cmp expect got &&
		c sonde list tracepo >got && echo tracepoint >expect && test_cmp expect got
	else
		echo "no tracefs to read here: event names not checked"
	fi
'

test_expect_success 'bash completion offers every option of every command, and no other' '
	. ./complete.sh compl/sonde.bash &&
	keys >keys && while read -r k; do
		$SONDE $k --help | help_opts >want &&
		c sonde $k - | grep "^-" | sort -u >got &&
		{ diff -u want got || { echo "in $k"; exit 1; }; }
	done <keys
'

test_expect_success 'zsh completion: parses, and has a function per command' '
	command -v zsh >/dev/null || { echo "no zsh here"; exit 0; }
	zsh -n compl/_sonde &&
	for k in $(keys | tr " " _); do grep -q "^_sonde_cmd_$k() {" compl/_sonde || { echo "no $k"; exit 1; }; done &&
	grep -q "^#compdef sonde .*execsnoop" compl/_sonde &&
	zsh -fc "autoload -Uz compinit && compinit -D && fpath=($TMP/compl \$fpath) && autoload -Uz _sonde && whence -w _sonde" | grep -q function
'

# zsh completion, driven: an interactive zsh in a pty (zpty) gets the keys, and
# each read waits for the text the completion must produce (no sleeps)
cat >"$TMP/drive.zsh" <<'EOF'
zmodload zsh/zpty
zpty z 'TERM=dumb zsh -f -i'
zpty -w z "PROMPT='%% '; fpath=($1 \$fpath); path=($2 \$path); autoload -Uz compinit; compinit -u -D; echo READY"
zpty -r z x '*READY*' || exit 1
step() { zpty -w -n z $'\x15'"$1"$'\t'; zpty -r z x "$2" || exit 1; print -r -- "ok: $1"; }
step 'sonde stat --ev' '*stat --event=*'
step 'sonde sched ' '*timehist*'
step 'sonde tool execs' '*tool execsnoop *'
step 'execsnoop --max' '*--max-args*'
step 'sonde flame --fontw' '*--fontwidth=*'
zpty -d z
EOF
test_expect_success 'zsh completion, driven in a pty: options, subcommands, tools' '
	command -v zsh >/dev/null || { echo "no zsh here"; exit 0; }
	mkdir -p bin && ln -sf "$SONDE" bin/sonde && ln -sf sonde bin/execsnoop &&
	timeout 60 zsh -f drive.zsh "$TMP/compl" "$TMP/bin" >out &&
	cat out && [ "$(grep -c "^ok: " out)" = 5 ]
'

test_expect_success 'make install puts everything under DESTDIR/PREFIX; uninstall removes exactly that' '
	d=$TMP/root && mkdir -p $d/usr/local/bin && printf "#!/bin/sh\n" >$d/usr/local/bin/opensnoop &&
	make -s -C "$ROOT" BUILD="$(basename "$BUILD")" install DESTDIR=$d >out 2>&1 &&
	grep -q "not replacing .*opensnoop" out &&
	[ -x $d/usr/local/bin/sonde ] && [ "$(readlink $d/usr/local/bin/execsnoop)" = sonde ] &&
	[ ! -L $d/usr/local/bin/opensnoop ] &&
	[ -s $d/usr/local/share/man/man1/sonde.1 ] && [ -s $d/usr/local/share/man/man1/sonde-stat.1 ] &&
	[ -s $d/usr/local/share/man/man1/execsnoop.1 ] &&
	[ -s $d/usr/local/share/bash-completion/completions/sonde ] &&
	[ "$(readlink $d/usr/local/share/bash-completion/completions/execsnoop)" = sonde ] &&
	[ -s $d/usr/local/share/zsh/site-functions/_sonde ] &&
	[ -s $d/usr/local/share/doc/sonde/README.md ] &&
	$d/usr/local/bin/execsnoop --help | grep -q "^usage: execsnoop" &&
	XDG_DATA_DIRS=$d/usr/local/share bash -c ". /usr/share/bash-completion/bash_completion
		_completion_loader execsnoop; _completion_loader sonde; complete -p execsnoop sonde" >loaded &&
	printf "%s\n" "complete -F _sonde_tool execsnoop" "complete -F _sonde sonde" >expect && test_cmp expect loaded &&
	$d/usr/local/bin/sonde --version | grep -q "^sonde version" &&
	make -s -C "$ROOT" BUILD="$(basename "$BUILD")" uninstall DESTDIR=$d >out 2>&1 &&
	find $d ! -type d >left && printf "%s\n" $d/usr/local/bin/opensnoop >expect && test_cmp expect left
'

# The package: built in a copy of the tree under build/pkg/ that keeps its
# build-deb/ between runs, so only what changed is compiled again (a first
# build compiles everything: about a minute here).
test_expect_success 'dpkg-buildpackage builds the .deb: Depends, contents, lintian' '
	command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null ||
		{ echo "dpkg-dev and debhelper are needed (make deps-test)"; exit 1; }
	git -C "$ROOT" rev-parse HEAD >/dev/null 2>&1 || { echo "not a git checkout: no file list to copy"; exit 0; }
	v=$($SONDE --version | cut -d" " -f3) && pkg=$BUILD/pkg && src=$pkg/sonde-$v &&
	mkdir -p $src && find $src -mindepth 1 -maxdepth 1 ! -name build-deb -exec rm -rf {} + &&
	(cd "$ROOT" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -a -t $src) &&
	c=$(git -C "$ROOT" rev-parse HEAD) && { git -C "$ROOT" diff --quiet HEAD -- || c=$c-dirty; } &&
	echo $c >$src/COMMIT &&
	rm -f $pkg/*.deb && (cd $src && dpkg-buildpackage -b -us -uc -nc -j2) >$pkg/build.log 2>&1 ||
		{ tail -30 $pkg/build.log; exit 1; }
	deb=$pkg/sonde_${v}_amd64.deb && [ -s $deb ] &&
	dpkg-deb -f $deb Depends >dep && cat dep &&
	for l in libbpf1 libdw1 libelf1 libtraceevent1 zlib1g libzstd1 libc6; do grep -q "$l (" dep || { echo "no $l"; exit 1; }; done &&
	# serve opens these with dlopen: named in debian/control, since dpkg-shlibdeps cannot see them
	for l in libmicrohttpd12 libyaml-0-2 libcrypt1; do grep -Eq "(^|, )$l( \(|,|$)" dep || { echo "no $l"; exit 1; }; done &&
	dpkg -c $deb >contents &&
	for f in ./usr/bin/sonde ./usr/share/man/man1/sonde-stat.1.gz ./usr/share/man/man1/execsnoop.1.gz \
		 ./usr/share/bash-completion/completions/sonde ./usr/share/zsh/vendor-completions/_sonde \
		 ./usr/share/doc/sonde/copyright; do
		grep -q " $f\( \|$\)" contents || { echo "not in the package: $f"; exit 1; }
	done &&
	grep -q " ./usr/bin/execsnoop -> sonde$" contents &&
	grep -q " ./usr/share/bash-completion/completions/execsnoop -> sonde$" contents &&
	if command -v lintian >/dev/null; then
		lintian $deb >lint 2>&1 || true
		cat lint; ! grep -q "^E: " lint
	fi
'

test_expect_success 'the .deb unpacked in a throwaway root runs sonde stat -- true' '
	v=$($SONDE --version | cut -d" " -f3) && deb=$BUILD/pkg/sonde_${v}_amd64.deb &&
	{ [ -s $deb ] || { echo "no package (the test above failed)"; exit 1; }; } &&
	dpkg -x $deb root && [ -x root/usr/bin/sonde ] &&
	root/usr/bin/sonde --version | grep -q "^sonde version $v (commit [0-9a-f]" &&
	root/usr/bin/sonde stat -e task-clock -- true 2>out &&
	grep -q "Performance counter stats for .true." out && grep -q "task-clock" out &&
	root/usr/bin/execsnoop --help | grep -q "^usage: execsnoop"
'

test_done
