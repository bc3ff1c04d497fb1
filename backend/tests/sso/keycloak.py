"""Keycloak, a real OpenID Connect provider, started for the single sign-on tests: `kc.sh
start-dev` (in memory) from the copy `scripts/bootstrap.sh --test` unpacks in /opt, on a JDK
>= 21, with the realm `lab` of realm-lab.json imported (the client `latlab`, confidential,
PKCE S256; ada and bob with a verified email, eve without)."""

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

KEYCLOAK = Path("/opt/keycloak-26.5.6")
REALM = Path(__file__).resolve().parent / "realm-lab.json"
CLIENT_ID, CLIENT_SECRET = "latlab", "latlab-test-secret"
USERS = {"ada": "ada-sso-password", "eve": "eve-sso-password", "bob": "bob-sso-password"}


def java_home() -> str:
    for home in sorted(glob.glob("/usr/lib/jvm/*-2[1-9]*")):
        if os.access(f"{home}/bin/java", os.X_OK):
            return home
    raise RuntimeError("no JDK >= 21 in /usr/lib/jvm (Keycloak needs one)")


@contextmanager
def keycloak() -> Iterator[str]:
    """The realm's issuer URL while Keycloak runs."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    home = Path(tempfile.mkdtemp(prefix="latlab-keycloak-"))
    shutil.copytree(KEYCLOAK, home / "kc", symlinks=True)
    (home / "kc" / "data" / "import").mkdir(parents=True, exist_ok=True)
    shutil.copy(REALM, home / "kc" / "data" / "import" / "realm-lab.json")
    log = (home / "keycloak.log").open("w")
    process = subprocess.Popen(
        [str(home / "kc" / "bin" / "kc.sh"), "start-dev", "--import-realm",
         f"--http-port={port}", "--http-host=127.0.0.1", "--hostname-strict=false",
         "--health-enabled=false", "--cache=local"],
        env={**os.environ, "JAVA_HOME": java_home(), "KC_DB": "dev-mem",
             "JAVA_OPTS_KC_HEAP": "-Xms64m -Xmx512m"},
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    issuer = f"http://127.0.0.1:{port}/realms/lab"
    try:
        deadline = time.monotonic() + 240
        while True:
            try:
                if httpx.get(f"{issuer}/.well-known/openid-configuration",
                             timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("Keycloak did not start:\n"
                                   + (home / "keycloak.log").read_text()[-4000:])
            time.sleep(1)
        yield issuer
    finally:
        os.killpg(process.pid, 15)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
        log.close()
        shutil.rmtree(home, ignore_errors=True)
