#!/bin/sh
# deps.sh build|test: install the Debian packages sonde needs, only those missing.
# Called by make; safe to run again (it asks dpkg first and does nothing if all are there).
set -e
build="gcc make pkg-config libelf-dev libdw-dev libbpf-dev zlib1g-dev clang llvm bpftool"
test="linux-perf strace bpftrace"
case "${1:-build}" in
	build) want="$build" ;;
	test) want="$build $test" ;;
	*) echo "deps.sh: unknown set '$1'" >&2; exit 2 ;;
esac
missing=""
for p in $want; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "sonde: these Debian packages are missing:$missing" >&2
	echo "hint: run 'make' as root, or: sudo apt-get install$missing" >&2
	exit 1
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing >/dev/null 2>&1 || {
	apt-get update -qq
	apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing
}
