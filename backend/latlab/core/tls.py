"""The lab's own certificate authority, for TLS to its broker (`rediss://`).

`make up` makes the CA when the broker is reachable beyond loopback (`LATLAB_BROKER_ADDRESS`)
and issues the broker's certificate and the lab processes' own; the api issues each host's at
enrollment (`latlab.hosts.enrollment`). The broker accepts a TLS client only with a certificate
of this CA, and a client believes the broker only with one. A certificate opens the connection
and nothing more: what a client may do is its broker user's (`latlab.hosts.broker_users`), so
revoking a host deletes its user and its certificate is left to expire.

Keys and certificates are made by `openssl` (P-256 keys), run with argument lists.
"""

import secrets
import subprocess
import tempfile
from dataclasses import dataclass
from ipaddress import ip_address
from pathlib import Path

CA_DAYS = 3650
LEAF_DAYS = 825


@dataclass(frozen=True)
class Issued:
    certificate: str  # PEM
    key: str  # PEM


def make_ca(directory: Path) -> tuple[Path, Path]:
    """The CA in `directory` (made on first use): its certificate and its private key."""
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    certificate, key = directory / "ca.pem", directory / "ca.key"
    if not certificate.exists() or not key.exists():
        _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                 "-nodes", "-keyout", str(key), "-out", str(certificate), "-days", str(CA_DAYS),
                 "-subj", "/O=latlab/CN=latlab lab CA",
                 "-addext", "basicConstraints=critical,CA:TRUE",
                 "-addext", "keyUsage=critical,keyCertSign,cRLSign")
        key.chmod(0o600)
    return certificate, key


def issue(ca_certificate: Path, ca_key: Path, name: str,
          addresses: tuple[str, ...] = ()) -> Issued:
    """A certificate of the CA for `name`, good as a client's and, with the `addresses`
    (IP addresses or DNS names) it is reached at, as a server's."""
    names = [f"IP:{a}" if _is_ip(a) else f"DNS:{a}" for a in addresses]
    extensions = ["basicConstraints=critical,CA:FALSE",
                  "keyUsage=critical,digitalSignature,keyEncipherment",
                  "extendedKeyUsage=serverAuth,clientAuth",
                  *([f"subjectAltName={','.join(names)}"] if names else [])]
    with tempfile.TemporaryDirectory(prefix="latlab-tls-") as scratch:
        folder = Path(scratch)
        (folder / "extensions").write_text("\n".join(extensions) + "\n")
        _openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                 "-nodes", "-keyout", str(folder / "key"), "-out", str(folder / "request"),
                 "-subj", f"/O=latlab/CN={name}")
        _openssl("x509", "-req", "-in", str(folder / "request"), "-CA", str(ca_certificate),
                 "-CAkey", str(ca_key), "-set_serial", f"0x{secrets.token_hex(16)}",
                 "-days", str(LEAF_DAYS), "-extfile", str(folder / "extensions"),
                 "-out", str(folder / "certificate"))
        return Issued((folder / "certificate").read_text(), (folder / "key").read_text())


def write_issued(issued: Issued, certificate: Path, key: Path) -> None:
    """Writes a certificate and its key (readable by its owner only)."""
    certificate.write_text(issued.certificate)
    key.touch(mode=0o600)
    key.chmod(0o600)
    key.write_text(issued.key)


def _is_ip(address: str) -> bool:
    try:
        ip_address(address)
    except ValueError:
        return False
    return True


def _openssl(*args: str) -> None:
    done = subprocess.run(["openssl", *args], capture_output=True, text=True, timeout=60,
                          check=False)
    if done.returncode != 0:
        raise RuntimeError(f"openssl {args[0]} failed: {done.stderr.strip()[-500:]}")
