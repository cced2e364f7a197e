#!/usr/bin/env bash
# Runs every check and test of the project: formatting, lints, and the test
# suites of all crates. This is the README's test command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each block's start and the time so far, so that CI's log shows where
# its minutes go.
started=$SECONDS
phase() { echo "== test.sh: $1 (at $((SECONDS - started)) s)"; }
phase "formatting and lints"
if [ ! -d ../shared/eval ]; then
  echo "note: ../shared/eval is absent: tests that score against the shared benchmarks will skip"
fi
cargo fmt --all --check
# The lints cover the code of the `jieba` feature too (the feature adds
# code; the few lines compiled only without it are built by the tests
# below), so the feature's block needs no second pass of its own.
cargo clippy --workspace --all-targets --locked --features neardup-cli/jieba -- -D warnings
# Debian's redis-server for the shared-store tests (`--store`:
# crates/server/tests/redis_*.rs, crates/cli/tests/serve_store*.rs), installed here
# when missing and apt-get can; the tests start their own servers (and a
# Cluster made with redis-cli, which comes with it in redis-tools, and
# sentinels) on free ports. The TLS tests make a throwaway CA with the openssl
# CLI. Without them those tests skip and say so.
if ! { command -v redis-server && command -v redis-cli && command -v openssl; } >/dev/null 2>&1 &&
  command -v apt-get >/dev/null 2>&1; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq redis-server redis-tools openssl >/dev/null) ||
    echo "note: could not install redis-server: the shared-store tests will skip"
fi
phase "tests"
cargo test --workspace --locked

phase "jieba"
# --- Chinese word segmentation (cargo feature `jieba`, off by default) ----
# Runs the tests that only exist with it (the suites above ran without it;
# the lints above covered it).
cargo test -p neardup-text --features jieba --locked
cargo test -p neardup-sketch --features jieba --locked --test segmenter
cargo test -p neardup-dedup --features jieba --locked --test jieba
cargo test -p neardup-cli --features jieba --locked --test cjk

phase "python"
# --- Python bindings (crates/python) -------------------------------------
# Builds the neardup wheel (maturin, release) into a virtualenv under
# target/ and runs its pytest suite, Spark local-mode tests included
# (pyspark from PyPI, Java 17 from the machine), and a standalone cluster of
# two workers on 127.0.0.1 whose executors run a venv-pack archive. NEARDUP_PYENV moves the
# virtualenv; NEARDUP_SKIP_PYTHON=1 skips this block.
if [ "${NEARDUP_SKIP_PYTHON:-0}" != 1 ]; then
  pyenv="${NEARDUP_PYENV:-${CARGO_TARGET_DIR:-target}/pyenv}"
  case "$pyenv" in /*) ;; *) pyenv="$PWD/$pyenv" ;; esac
  if [ ! -x "$pyenv/bin/python" ]; then
    python3 -m venv "$pyenv"
  fi
  "$pyenv/bin/python" -m pip install -q --disable-pip-version-check \
    "maturin>=1.5,<2" pytest pyarrow "pandas<3" pyspark datasketch scrapy \
    datatrove warcio faust-cchardet python-magic orjson venv-pack redis
  # maturin (the build backend) runs from the virtualenv's bin/. The
  # interpreter is named python3, as the shebang of the virtualenv's `pip`
  # names it: maturin passes that path to pyo3's build script, so the
  # docs' `pip install ./crates/python` below reuses this build instead of
  # compiling the extension again (4 minutes).
  PATH="$pyenv/bin:$PATH" "$pyenv/bin/python3" -m pip install -q \
    --disable-pip-version-check --no-build-isolation --force-reinstall \
    --no-deps ./crates/python
  PYSPARK_PYTHON="$pyenv/bin/python" "$pyenv/bin/python" -m pytest -q \
    -p no:cacheprovider --durations=10 crates/python/tests

  phase "docs"
  # --- The documentation's examples --------------------------------------
  # Every sh and python block of README.md and docs/ runs as written (the
  # README's set-up command builds the release binary), and output shown
  # after a block is checked: tests/docs/snippets.py has the rules.
  PATH="$pyenv/bin:$PATH" PYSPARK_PYTHON="$pyenv/bin/python" \
    "$pyenv/bin/python" -m pytest -q -p no:cacheprovider --durations=10 tests/docs

  phase "browser"
  # --- The HTML report in a real browser --------------------------------
  # Debian's chromium and chromium-driver (installed here when missing and
  # apt-get can), driven by selenium from the virtualenv; screenshots go to
  # target/browser-shots. NEARDUP_SKIP_BROWSER=1 skips this block.
  if [ "${NEARDUP_SKIP_BROWSER:-0}" != 1 ]; then
    if ! command -v chromedriver >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq chromium chromium-driver >/dev/null) ||
        echo "note: could not install chromium: the browser tests will skip"
    fi
    "$pyenv/bin/python" -m pip install -q --disable-pip-version-check selenium
    NEARDUP_BIN="${CARGO_TARGET_DIR:-target}/debug/neardup" \
      "$pyenv/bin/python" -m pytest -q -p no:cacheprovider crates/cli/tests/browser
  fi
fi
phase "done"
