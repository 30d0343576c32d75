#!/bin/sh
# Builds the Debian package (cpack -G DEB) and checks it as a Debian 12 user meets it: apt
# installs it, resolving its Depends, into a fresh minimal Debian 12 root (debootstrap), where
# the install tests (tests/install/) build a CMake project with find_package(Quartz) and a
# Make project with quartz-cc and pkg-config, and profile them: only the package's files,
# under /usr. Takes minutes (the root and the compilers are downloaded), so it is not part of
# scripts/test.sh. Run as root.
#   scripts/test-deb.sh [BUILD_DIR]      (default: build-deb; the root is BUILD_DIR/bookworm)
set -eu
cd "$(dirname "$0")/.."
build=${1:-build-deb}
root="$build/bookworm"
started=$(date +%s)
export DEBIAN_FRONTEND=noninteractive

command -v debootstrap >/dev/null || apt-get install -y -qq --no-install-recommends debootstrap

# Configured for /usr, as Debian's own packages are: GNUInstallDirs then chooses the multiarch
# library directory (/usr/lib/x86_64-linux-gnu). Only what the package holds is built.
QUARTZ_TARGETS="quartz quartz_cli quartz_man_pages" ./scripts/build.sh "$build" \
  -DCMAKE_INSTALL_PREFIX=/usr -DQUARTZ_BUILD_BENCH=OFF >/dev/null
# quartz-view too, when Qt 6 is here to build it.
if cmake --build "$build" --target help | grep '^quartz-view:' >/dev/null; then
  QUARTZ_TARGETS="quartz-view quartz_man_pages" ./scripts/build.sh "$build" >/dev/null
fi
rm -f "$build"/quartz_*.deb
(cd "$build" && cpack -G DEB >/dev/null)
deb=$(ls "$build"/quartz_*.deb)
echo "test-deb: $deb"
dpkg-deb --field "$deb" Depends
echo "test-deb: built in $(($(date +%s) - started)) s"

# unmount_root: the file systems mounted into the root (also when a step fails).
unmount_root() {
  for mounted in proc sys dev/pts dev; do
    if mountpoint -q "$root/$mounted"; then umount "$root/$mounted"; fi
  done
}
trap unmount_root EXIT
unmount_root
rm -rf "$root"

# The Debian archive this machine's apt uses for bookworm.
[ -n "$(apt-get indextargets)" ] || apt-get update -qq
# shellcheck disable=SC2016 # $(REPO_URI) is apt's, not the shell's
mirror=$(apt-get indextargets --format '$(REPO_URI)' 'RELEASE: bookworm' | head -n 1)
debootstrap --variant=minbase bookworm "$root" "${mirror:-http://deb.debian.org/debian}" \
  >"$build/debootstrap.log"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# Quartz reads /proc (its own path, the program's threads) and hwloc reads /sys.
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"

cp "$deb" "$root/tmp/"
rm -rf "$root/root/install-tests"
cp -r tests/install "$root/root/install-tests"
# The package, with only its Depends, then a user's tools: compilers, make, cmake, pkg-config
# (python3 reads the reports in the tests). Nothing of this machine's environment goes in.
chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root sh -eu -c "
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends /tmp/$(basename "$deb") >/dev/null
  for program in /usr/bin/quartz /usr/bin/quartz-view; do
    if [ -e \$program ] && ldd \$program | grep 'not found'; then exit 1; fi
  done
  apt-get install -y -qq --no-install-recommends g++ make cmake pkgconf python3 >/dev/null
  cd /root/install-tests
  ./cmake_project_test.sh /usr /root/cmake_project c++ GNU
  ./make_project_test.sh /usr /root/make_project GNU
"
# The man pages and the package's files where GNUInstallDirs puts them.
for file in usr/bin/quartz usr/bin/quartz-cc usr/bin/quartz-c++ \
  usr/lib/x86_64-linux-gnu/libquartz.so usr/include/quartz/quartz.h \
  usr/lib/x86_64-linux-gnu/cmake/Quartz/QuartzConfig.cmake \
  usr/lib/x86_64-linux-gnu/pkgconfig/quartz.pc usr/share/man/man1/quartz.1; do
  [ -e "$root/$file" ] || {
    echo "test-deb: the package installed no /$file" >&2
    exit 1
  }
done
echo "test-deb: the package installs and works on a fresh Debian 12 ($(($(date +%s) - started)) s)"
