#!/usr/bin/env bash
# Makes sure `--guest` has a user-mode Linux kernel that runs on this machine's CPU, and prints
# the path of one to name with LITEBENCH_GUEST_KERNEL when Debian's own cannot (nothing when it
# can).
#
# Usage: tests/fs/fetch-uml.sh CACHE_DIR
#
# Why: Debian 12's user-mode-linux (Linux 6.1) and even Debian 13's (6.12) hand the host's
# ptrace a fixed-size FPU state; on a CPU with AVX-512 or AMX the host kernel wants a larger
# one, refuses with EFAULT, and the guest's first process dies ("userspace - ptrace set fp regs
# failed, errno = 14", the guest kernel then aborts). Linux 7.x's user-mode build sizes the state
# at run time. So on such a host this fetches Debian's user-mode-linux 7.2 and the C library it
# is built against (glibc 2.41, newer than Debian 12's) from Debian's archive, pinned by
# SHA-256 (checked before anything is unpacked), unpacks both under CACHE_DIR/uml/, and points
# the kernel at that C library with patchelf (its loader and library path), leaving the
# system's C library alone. The kernel's modules come with it (usr/lib/uml/modules/RELEASE
# beside usr/bin/linux.uml), where litebench looks for them (src/testbed/guest/kernel.rs).
#
# Idempotent: a kernel already unpacked and booting is reused. Nothing fetched is committed.
set -euo pipefail

cache=${1:?usage: $0 CACHE_DIR}
mkdir -p "$cache/uml/downloads"
cache=$(cd "$cache" && pwd)

archive=http://deb.debian.org/debian/pool/main
# package file | path under the archive | SHA-256
debs=(
  "user-mode-linux_7.2um1_amd64.deb|u/user-mode-linux|f947c9244fd79d481299df2ad68961f6b3b7703bff38c4b0e726f861161da62c"
  "libc6_2.41-12+deb13u5_amd64.deb|g/glibc|b59b0625cd1a791375d40dab23a4d5d3d0641e3d0a773501becdc3725b7f99cf"
)
root="$cache/uml/7.2um1"
kernel="$root/usr/bin/linux.uml"

# Boots KERNEL with /bin/true as its first process (the host's root, read-only, over hostfs)
# and says whether that process ran: its exit is the guest kernel's "Attempted to kill init!
# exitcode=0x00000000"; on a CPU the kernel cannot serve, it dies of SIGSEGV (0x0000000b).
boots() {
  local out
  out=$(cd / && timeout 60 "$1" mem=64M root=/dev/root rootfstype=hostfs rootflags=/ ro \
    init=/bin/true con=null con0=null,fd:1 </dev/null 2>&1) || true
  grep -q 'exitcode=0x00000000' <<<"$out"
}

system=$(command -v linux.uml || true)
if [ -n "$system" ] && boots "$system"; then
  exit 0
fi
if [ -x "$kernel" ] && boots "$kernel"; then
  echo "$kernel"
  exit 0
fi
command -v patchelf >/dev/null || { echo "fetch-uml.sh: patchelf is missing; install the Debian package patchelf" >&2; exit 1; }

rm -rf "$root.part"
mkdir -p "$root.part"
for entry in "${debs[@]}"; do
  IFS='|' read -r file dir sha <<<"$entry"
  deb="$cache/uml/downloads/$file"
  if [ ! -f "$deb" ]; then
    curl -fsSL --retry 3 -o "$deb.part" "$archive/$dir/$file"
    mv "$deb.part" "$deb"
  fi
  actual=$(sha256sum "$deb" | cut -d' ' -f1)
  if [ "$actual" != "$sha" ]; then
    echo "fetch-uml.sh: $file has SHA-256 $actual, not the pinned $sha; not unpacking it" >&2
    rm -f "$deb"
    exit 1
  fi
  dpkg-deb -x "$deb" "$root.part"
done
libdir="$root/usr/lib/x86_64-linux-gnu"
patchelf --set-interpreter "$libdir/ld-linux-x86-64.so.2" --set-rpath "$libdir" "$root.part/usr/bin/linux.uml"
rm -rf "$root"
mv "$root.part" "$root"
if ! boots "$kernel"; then
  echo "fetch-uml.sh: neither ${system:-the system linux.uml} nor $kernel boots on this machine" >&2
  exit 1
fi
echo "$kernel"
