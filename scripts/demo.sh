#!/bin/sh
# The main job: installs what is missing, builds, profiles the bundled serial_init sample
# (the Quartz paper's "Verify" case: a serial logging routine that costs little processor
# time but much elapsed time) and prints its report.
set -eu
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh build
rm -f build/demo.db
build/bin/quartz run --store build/demo.db -- build/samples/serial_init
build/bin/quartz report --store build/demo.db
