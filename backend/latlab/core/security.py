"""Passwords, random secrets and their hashes."""

import hashlib
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher()

TOKEN_PREFIX = "llt_"


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str, password: str) -> bool:
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def new_secret(prefix: str = "") -> str:
    return prefix + secrets.token_urlsafe(32)


def secret_hash(secret: str) -> str:
    """Tokens and session ids are high-entropy, so a plain SHA-256 is enough to store them."""
    return hashlib.sha256(secret.encode()).hexdigest()


# Verified against when the email is unknown, so that answer costs what a known one does.
_DUMMY_HASH = hash_password(new_secret())


def dummy_verify(password: str) -> None:
    verify_password(_DUMMY_HASH, password)
