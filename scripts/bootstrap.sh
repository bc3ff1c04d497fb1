#!/usr/bin/env bash
# Installs the system packages latlab needs on Debian/Ubuntu, only those missing, and (as
# root) the user that code under test runs as.
#   scripts/bootstrap.sh            what `make up` needs: the lab and every suite's toolchain
#   scripts/bootstrap.sh --test     plus what `make test` needs (chromium, prometheus)
#   scripts/bootstrap.sh --suites   only the suites' toolchains (a runner host, the runner image)
set -euo pipefail
mode="${1:-}"

need=()
have() { command -v "$1" >/dev/null 2>&1; }
if [[ "$mode" != "--suites" ]]; then
  ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || need+=(postgresql)
  have redis-server || need+=(redis-server)
  have python3 || need+=(python3)
  python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need+=(python3-venv)
  have node || need+=(nodejs)
  have npm || need+=(npm)
  have setpriv || need+=(util-linux)
  have wrk || need+=(wrk)  # bench/loadgen_fidelity.sh's reference
fi
if [[ "$mode" == "--test" ]]; then
  have chromium || need+=(chromium)
  have curl || need+=(curl)  # Keycloak, the single sign-on tests' provider, from Maven Central
  # The /metrics test runs its own Prometheus server on a free port and a temporary store.
  [[ -x /usr/bin/prometheus ]] || need+=(prometheus)
fi
# The runner's own tools, on every host that runs jobs: CPU profiles of native programs, and
# git and ssh to fetch a repository's commit (and `git daemon`, which the tests serve from).
have perf || need+=(linux-perf)
have git || need+=(git)
have ssh || need+=(openssh-client)
# What the suites need: each suite.toml's [toolchain] (no suite is named here).
mapfile -t suites_need < <(python3 "$(dirname "$0")/toolchain.py" apt)
need+=("${suites_need[@]}")

if ((${#need[@]})); then
  echo "bootstrap: installing ${need[*]}"
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q
  # Cargo.lock files need cargo >= 1.78, which Debian 12 ships as cargo-web.
  if [[ " ${need[*]} " == *" cargo "* ]] && apt-cache show cargo-web >/dev/null 2>&1; then
    need=("${need[@]/#cargo/cargo-web}")
  fi
  $sudo apt-get install -y -q --no-install-recommends "${need[@]}"
  # Debian starts the prometheus service where systemd runs; the tests need no resident one.
  if [[ " ${need[*]} " == *" prometheus "* ]] && [[ -d /run/systemd/system ]]; then
    $sudo systemctl disable --now prometheus
  fi
fi

# Code under test (a repository's build and programs) runs as this user, never as the runner.
# The tests run in parallel, each worker's lab with a code user of its own (every process of
# a code user is killed when a job ends): latlab-code-1 .. -5 besides (backend/tests/conftest.py).
code_users=(latlab-code)
[[ "$mode" == "--test" ]] && code_users+=(latlab-code-1 latlab-code-2 latlab-code-3 latlab-code-4 latlab-code-5)
for user in "${code_users[@]}"; do
  if [[ $(id -u) -eq 0 ]] && ! id "$user" >/dev/null 2>&1; then
    echo "bootstrap: creating the user $user (code under test runs as it)"
    useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
  fi
done

# The single sign-on tests run a real OpenID Connect provider: Keycloak, from Maven Central,
# on a JDK >= 21 (the machine's second JDK; Debian 12's is 17).
if [[ "$mode" == "--test" ]]; then
  keycloak_version=26.5.6
  keycloak="/opt/keycloak-$keycloak_version"
  if [[ ! -x "$keycloak/bin/kc.sh" ]]; then
    echo "bootstrap: fetching Keycloak $keycloak_version (the sign-on tests' provider)"
    scratch=$(mktemp -d)
    curl -fsSL -o "$scratch/keycloak.zip" "https://repo1.maven.org/maven2/org/keycloak/keycloak-quarkus-dist/$keycloak_version/keycloak-quarkus-dist-$keycloak_version.zip"
    python3 -m zipfile -e "$scratch/keycloak.zip" /opt/
    chmod +x "$keycloak"/bin/*.sh
    rm -rf "$scratch"
  fi
  ls -d /usr/lib/jvm/*-2[1-9]-* /usr/lib/jvm/*-2[1-9] >/dev/null 2>&1 || \
    echo "bootstrap: no JDK >= 21 in /usr/lib/jvm: the single sign-on tests will fail" >&2
fi

python3 - <<'PY'
import sys
if sys.version_info[:2] != (3, 11):
    sys.exit(f"bootstrap: latlab pins Python 3.11; python3 is {sys.version.split()[0]}")
PY
[[ "$mode" == "--suites" ]] && exit 0
node -e 'const [a,b]=process.versions.node.split(".").map(Number); if (a<20||(a===20&&b<19)) { console.error("bootstrap: Node >= 20.19 is needed for the dashboard build; found " + process.version); process.exit(1) }'
