#!/usr/bin/env bash
# CI for the Python package: a fresh virtual environment, the extension built and installed by
# pip (maturin as the build backend, release profile), then the pytest suite against fastavro.
#
#   bash crates/avrokit-python/ci.sh
#
# Needs python3 (3.9+) with venv, and the Rust toolchain. The venv lives in the cargo target
# directory (CARGO_TARGET_DIR, else <workspace>/target), so a clean clone leaves nothing behind.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
venv="$target/python-ci-venv"
start=$SECONDS

python3 -m venv --clear "$venv"
py="$venv/bin/python"
"$py" -m pip install --quiet --upgrade pip
# fastavro is the reference reader/writer; cramjam and backports.zstd give it the snappy and
# zstandard codecs; pyarrow and polars are for the Arrow side; moto's S3 server is what
# tests/test_remote.py reads s3:// URLs from (with CI set, those tests fail without it).
"$py" -m pip install --quiet maturin fastavro cramjam backports.zstd pyarrow polars pytest 'moto[server]'
echo "avrokit-python: tools installed ($((SECONDS - start)) s)"

# The tests need no speed: build the dev profile (a release build's fat LTO takes most of the
# run on 2 cores). AVROKIT_PY_PROFILE=release builds what `pip install` builds for users.
profile="${AVROKIT_PY_PROFILE:-dev}"
MATURIN_PEP517_ARGS="--profile $profile" "$py" -m pip install --quiet "$here"
echo "avrokit-python: extension built ($profile profile) and installed ($((SECONDS - start)) s)"

cd "$here"
set +e
"$py" -m pytest -q tests
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
    # pytest's "no tests collected": the suite is missing, which is a failure, not a pass.
    echo "avrokit-python: pytest collected no tests under $here/tests" >&2
    exit 1
fi
echo "avrokit-python: done in $((SECONDS - start)) s (pytest exit $rc)"
exit "$rc"
