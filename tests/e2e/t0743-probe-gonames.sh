#!/bin/bash
# t0743: uprobes on functions named as Go names them (net/http.(*ServeMux).ServeHTTP),
# written unquoted as the seed's one-liner writes them: the '/' of the package path and
# the '*' of a pointer receiver are part of the name; predicates still parse around them.
# The Go names are given to a C workload's functions with objcopy --redefine-sym, so the
# call counts are known exactly (ftrace_calls N: tick N times, tock once).
. "$(dirname "$0")/../lib.sh"

require_root 'uprobes on Go-named functions' 'uprobes need root'
GO=$TMP/goserver
objcopy --redefine-sym 'tick=net/http.(*ServeMux).ServeHTTP' --redefine-sym 'tock=net/http.(*Server).Serve' \
	"$WORKLOADS/ftrace_calls" "$GO"

test_expect_success 'the seed'"'"'s one-liner, unquoted: every call counted' '
	$SONDE probe -e "uprobe:$GO:net/http.(*ServeMux).ServeHTTP { @requests = count(); }" -c "$GO 37" >out &&
	grep -qx "@requests: 37" out
'
test_expect_success 'a predicate after the name, and the quoted spelling' '
	$SONDE probe -e "uprobe:$GO:net/http.(*ServeMux).ServeHTTP /arg0 < 10/ { @n = count(); }" -c "$GO 37" >out &&
	grep -qx "@n: 10" out &&
	$SONDE probe -e "uprobe:$GO:\"net/http.(*ServeMux).ServeHTTP\" { @n = count(); }" -c "$GO 5" >out &&
	grep -qx "@n: 5" out
'
test_expect_success 'the receiver'"'"'s * is literal, other wildcards match: both methods' '
	$SONDE probe -e "uprobe:$GO:net/http.(*Serve*).* { @[probe] = count(); }" -c "$GO 7" >out &&
	grep -qxF "@[uprobe:$GO:net/http.(*ServeMux).ServeHTTP]: 7" out &&
	grep -qxF "@[uprobe:$GO:net/http.(*Server).Serve]: 1" out &&
	! $SONDE probe --dry-run -e "uprobe:$GO:net/http.(*Nothing).* { 1 }" 2>err &&
	grep -qF "no function of '"'"'$GO'"'"' matches '"'"'net/http.(*Nothing).*'"'"'" err
'
test_expect_success 'C names with predicates written without spaces still parse as predicates' '
	cp "$WORKLOADS/ftrace_calls" ./fc && $SONDE probe -e "uprobe:$PWD/fc:tick/arg0 < 3/ { @a = count(); } uretprobe:$PWD/fc:tick/retval/ { @b = count(); }" -c "$PWD/fc 9" >out &&
	grep -qx "@a: 3" out && grep -qx "@b: 8" out
'
test_expect_success 'uprobe -l lists the Go names' '
	$SONDE probe -l "uprobe:$GO:net/http.*" >out &&
	grep -qxF "uprobe:$GO:net/http.(*ServeMux).ServeHTTP" out
'
test_done
