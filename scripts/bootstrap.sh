#!/usr/bin/env bash
# Installs the system packages latlab needs on Debian/Ubuntu, only those missing.
#   scripts/bootstrap.sh            what `make up` needs
#   scripts/bootstrap.sh --test     plus what `make test` needs (chromium)
set -euo pipefail

need=()
have() { command -v "$1" >/dev/null 2>&1; }
ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || need+=(postgresql)
have redis-server || need+=(redis-server)
have python3 || need+=(python3)
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need+=(python3-venv)
have node || need+=(nodejs)
have npm || need+=(npm)
have setpriv || need+=(util-linux)
have gcc || need+=(build-essential)
have cargo || need+=(cargo)  # the echo and http-order suites are Rust
# The http-order suite's load clients: Go, C and C++ with libcurl, HdrHistogram_c (cmake, zlib).
have go || need+=(golang-go)
have cmake || need+=(cmake)
have pkg-config || need+=(pkg-config)
have curl || need+=(curl)
[[ -e /usr/include/zlib.h ]] || need+=(zlib1g-dev)
pkg-config --exists libcurl 2>/dev/null || need+=(libcurl4-openssl-dev)
have wrk || need+=(wrk)  # bench/loadgen_fidelity.sh's reference
if [[ "${1:-}" == "--test" ]]; then
  have chromium || need+=(chromium)
fi

if ((${#need[@]})); then
  echo "bootstrap: installing ${need[*]}"
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q
  # The suites' Cargo.lock files need cargo >= 1.78, which Debian 12 ships as cargo-web.
  if [[ " ${need[*]} " == *" cargo "* ]] && apt-cache show cargo-web >/dev/null 2>&1; then
    need=("${need[@]/#cargo/cargo-web}")
  fi
  $sudo apt-get install -y -q --no-install-recommends "${need[@]}"
fi

python3 - <<'PY'
import sys
if sys.version_info[:2] != (3, 11):
    sys.exit(f"bootstrap: latlab pins Python 3.11; python3 is {sys.version.split()[0]}")
PY
node -e 'const [a,b]=process.versions.node.split(".").map(Number); if (a<20||(a===20&&b<19)) { console.error("bootstrap: Node >= 20.19 is needed for the dashboard build; found " + process.version); process.exit(1) }'
