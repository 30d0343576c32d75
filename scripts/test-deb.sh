#!/bin/sh
# Builds the Debian package (cpack -G DEB) and checks it as a Debian 12 user meets it: apt
# installs it, resolving its Depends, into a fresh minimal Debian 12 root (debootstrap), where
# the install tests (tests/install/) build a CMake project with find_package(Quartz) and a
# Make project with quartz-cc and pkg-config, and profile them: only the package's files,
# under /usr. Takes minutes (the root and the compilers are downloaded), so it is not part of
# scripts/test.sh. Run as root.
#   scripts/test-deb.sh [BUILD_DIR]      (default: build-deb; the root is BUILD_DIR/bookworm)
#   scripts/test-deb.sh --prepare-root [BUILD_DIR]
#                                        makes the root and downloads what the test installs
#                                        in it, without installing it: .ci/run does this
#                                        while the tests run, the downloads being most of it
set -eu
cd "$(dirname "$0")/.."
prepare_only=false
if [ "${1:-}" = "--prepare-root" ]; then
  prepare_only=true
  shift
fi
build=${1:-build-deb}
root="$build/bookworm"
started=$(date +%s)
export DEBIAN_FRONTEND=noninteractive
# The user's tools the test installs after the package, and the libraries the package is
# expected to depend on: downloaded ahead by --prepare-root, installed only when their turn
# comes (so a Depends the package forgot is still missed on the fresh root).
tools="g++ make cmake pkgconf python3"
expected_libraries="libhwloc15 libunwind8 libsqlite3-0 libpq5 libdw1 zlib1g libqt6widgets6"
expected_libraries="$expected_libraries libqt6charts6 libqt6svg6 libqt6opengl6 libgl1"

command -v debootstrap >/dev/null || apt-get install -y -qq --no-install-recommends debootstrap

# unmount_root: the file systems mounted into the root (also when a step fails).
unmount_root() {
  for mounted in proc sys dev/pts dev; do
    if mountpoint -q "$root/$mounted"; then umount "$root/$mounted"; fi
  done
}

# make_root: a fresh minimal Debian 12 root with the tools' and libraries' packages in its
# apt cache; marked ready only once whole.
make_root() {
  unmount_root
  rm -rf "$root"
  mkdir -p "$build"
  # The Debian archive this machine's apt uses for bookworm.
  [ -n "$(apt-get indextargets)" ] || apt-get update -qq
  # shellcheck disable=SC2016 # $(REPO_URI) is apt's, not the shell's
  mirror=$(apt-get indextargets --format '$(REPO_URI)' 'RELEASE: bookworm' | head -n 1)
  debootstrap --variant=minbase bookworm "$root" "${mirror:-http://deb.debian.org/debian}" \
    >"$build/debootstrap.log"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root sh -eu -c "
    apt-get update -qq
    apt-get install -y -qq --download-only --no-install-recommends $tools >/dev/null
    for library in $expected_libraries; do
      apt-get install -y -qq --download-only --no-install-recommends \$library >/dev/null 2>&1 || true
    done
  "
  touch "$root/.quartz-root-ready"
}

if $prepare_only; then
  make_root
  echo "test-deb: root prepared in $(($(date +%s) - started)) s"
  exit 0
fi

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

trap unmount_root EXIT
# A root --prepare-root made is used once: the test installs into it.
if [ -e "$root/.quartz-root-ready" ]; then
  rm "$root/.quartz-root-ready"
else
  make_root
  rm "$root/.quartz-root-ready"
fi
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
  apt-get install -y -qq --no-install-recommends $tools >/dev/null
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
