#!/usr/bin/env bash
# Makes this machine one of a lab's hosts, in one command, from a checkout of this repository:
#   scripts/join-host.sh https://lab.example 7F3QK-M2X9P-...   [latlab-runner join's options]
# Installs the suites' toolchains (bootstrap.sh --suites, only what is missing), the runner in
# the checkout's .venv (or $LATLAB_VENV) unless it is there, then joins the lab with the
# invitation's code and installs the runner's systemd service (`latlab-runner join --service`).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
"$here/scripts/bootstrap.sh" --suites
venv="${LATLAB_VENV:-$here/.venv}"
if [[ ! -x "$venv/bin/latlab-runner" ]]; then
  echo "join-host: installing the runner in $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --upgrade pip
  "$venv/bin/pip" install -q -e "$here/contract" -e "$here/workers"
fi
exec "$venv/bin/latlab-runner" join "$@" --service
