#!/bin/sh
# deps.sh build|test|vm: install the Debian packages sonde needs, only those missing.
# Called by make; safe to run again (it asks dpkg first and does nothing if all are there).
set -e
build="gcc make pkg-config libelf-dev libdw-dev libbpf-dev libtraceevent-dev zlib1g-dev libzstd-dev clang llvm bpftool systemtap-sdt-dev scdoc libmicrohttpd-dev libyaml-dev"
test="linux-perf strace trace-cmd bpftrace python3 time perl tmux sysstat chromium protobuf-compiler libxml2-utils libbpf-tools valgrind golang-go libjemalloc2 ltrace groff-base dpkg-dev debhelper lintian zsh bash-completion mandoc prometheus"
vm="qemu-system-x86 busybox-static libbz2-dev tcpdump"
# vm: also the kernel `make test-vm` boots (tests/vm/README.md): Debian's cloud kernel package,
# downloaded and unpacked into build/vm/kernel, never installed: /boot and the bootloader stay as they are;
# `vm rt`: Debian's PREEMPT_RT kernel of the same release (it has the wakeup tracers) into build/vm/kernel-rt
vm_kernel() (
	flavour=$1 dir=build/vm/kernel${2:+-$2}
	cd "$(dirname "$0")/.." && [ ! -s $dir/vmlinuz ] || exit 0
	dep() { apt-cache depends linux-image-$flavour-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9].*\)/\1/p' | head -1; }
	pkg=$(dep); [ -n "$pkg" ] || { apt-get update -qq >/dev/null 2>&1; pkg=$(dep); }
	[ -n "$pkg" ] || { echo "sonde: cannot find Debian's package linux-image-$flavour-amd64 (apt-cache depends)" >&2; exit 1; }
	mkdir -p build/vm && tmp=$(mktemp -d build/vm/.kernel.XXXXXX) && trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && apt-get download -qq -o APT::Sandbox::User=root "$pkg" >/dev/null 2>&1 ||
		{ apt-get update -qq >/dev/null 2>&1; apt-get download -qq -o APT::Sandbox::User=root "$pkg"; }) ||
		{ echo "sonde: cannot download Debian's package $pkg (apt-get download)" >&2; exit 1; }
	dpkg-deb -x "$tmp"/*.deb "$tmp/x" && mkdir "$tmp/kernel" &&
	mv "$tmp"/x/boot/vmlinuz-* "$tmp/kernel/vmlinuz" && mv "$tmp"/x/boot/config-* "$tmp/kernel/config" &&
	echo "$pkg" >"$tmp/kernel/package" && rm -rf $dir && mv "$tmp/kernel" $dir
)
case "${1:-build}" in
	build) want="$build" ;;
	test) want="$build $test" ;;
	vm) want="$build $vm"; vm_kernel cloud; [ "${2:-}" != rt ] || vm_kernel rt rt ;;
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
