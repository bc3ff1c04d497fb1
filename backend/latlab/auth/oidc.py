"""Single sign-on with OpenID Connect: the authorization code flow with PKCE (S256), a state
bound to the browser (a cookie and a Redis entry, each good once, 10 minutes), a nonce in the
ID token, whose signature (the provider's JWKS), issuer, audience and expiry are checked.

Providers are the lab admin's choice, in a TOML file (`LATLAB_OIDC_PROVIDERS`); their client
secrets stay in that file (or the environment variable it names), never in the database or an
answer. A user is matched by the provider's *verified* email, case-insensitively; one the lab
does not know is created as a member of the default project when the provider says
`create_users = true`, else refused. Sessions are the same as a password's
(`service.open_session`); `LATLAB_PASSWORD_SIGN_IN=false` leaves SSO as the only way in.

```toml
[[provider]]
name = "sso"                                    # in the addresses: /api/v1/auth/oidc/sso/...
label = "Company SSO"                           # on the sign-in page
issuer = "https://sso.example.com/realms/lab"   # its /.well-known/openid-configuration
client_id = "latlab"
client_secret_env = "LATLAB_OIDC_SSO_SECRET"    # or client_secret = "..."
create_users = true
```
"""

import base64
import hashlib
import json
import os
import secrets
import time
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import jwt
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from latlab.auth.schemas import UserCreate
from latlab.auth.service import create_user
from latlab.core.errors import AppError, Forbidden, NotFound
from latlab.core.kv import redis_client
from latlab.core.settings import get_settings
from latlab.models import Role, User
from latlab.projects import service as projects

STATE_COOKIE = "latlab_oidc"
STATE_TTL_S = 600
DISCOVERY_TTL_S = 3600
NAME = r"^[a-z0-9][a-z0-9-]{0,31}$"


class SignInFailed(AppError):
    status_code = 400


@dataclass(frozen=True)
class Provider:
    name: str
    label: str
    issuer: str
    client_id: str
    client_secret: str
    create_users: bool = False
    scopes: str = "openid email profile"


@dataclass(frozen=True)
class Started:
    """Where the browser goes, and the state cookie it carries there and back."""

    url: str
    state: str


@lru_cache
def providers() -> dict[str, Provider]:
    """The providers of `LATLAB_OIDC_PROVIDERS` (none without it); a file that is wrong stops
    the process with what is wrong in it, at its first use."""
    path = get_settings().oidc_providers
    if not path:
        return {}
    document = tomllib.loads(Path(path).read_text())
    found = {}
    for entry in document.get("provider", []):
        secret = entry.get("client_secret") or os.environ.get(entry.get("client_secret_env", ""),
                                                              "")
        provider = Provider(name=entry["name"], label=entry.get("label", entry["name"]),
                            issuer=entry["issuer"].rstrip("/"), client_id=entry["client_id"],
                            client_secret=secret,
                            create_users=bool(entry.get("create_users", False)),
                            scopes=entry.get("scopes", "openid email profile"))
        found[provider.name] = provider
    return found


def provider(name: str) -> Provider:
    found = providers().get(name)
    if found is None:
        raise NotFound(f"no sign-in provider '{name}'")
    return found


def start(name: str, redirect_uri: str, next_path: str) -> Started:
    """The provider's authorization URL for a new flow (its state, nonce and PKCE verifier
    kept in Redis for STATE_TTL_S)."""
    chosen = provider(name)
    discovered = _discovery(chosen.issuer)
    state, nonce, verifier = (secrets.token_urlsafe(32) for _ in range(3))
    redis_client().set(f"oidc:{state}", json.dumps({
        "provider": name, "nonce": nonce, "verifier": verifier, "next": safe_next(next_path),
        "redirect_uri": redirect_uri}), ex=STATE_TTL_S)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    query = {"response_type": "code", "client_id": chosen.client_id,
             "redirect_uri": redirect_uri, "scope": chosen.scopes, "state": state,
             "nonce": nonce, "code_challenge": challenge.rstrip(b"=").decode(),
             "code_challenge_method": "S256"}
    return Started(f"{discovered['authorization_endpoint']}?{urlencode(query)}", state)


def finish(session: Session, name: str, code: str, state: str, cookie: str | None
           ) -> tuple[User, str]:
    """The user the provider signed in, and where the browser goes next. The state must be
    the one this browser started with (its cookie) and still unused."""
    if not cookie or not secrets.compare_digest(cookie, state):
        raise SignInFailed("this sign-in was not started in this browser; start it again")
    kept = redis_client().getdel(f"oidc:{state}")
    if kept is None:
        raise SignInFailed("this sign-in expired or was already used; start it again")
    flow = json.loads(kept)
    if flow["provider"] != name:
        raise SignInFailed("this sign-in was started with another provider")
    chosen = provider(name)
    discovered = _discovery(chosen.issuer)
    claims = _id_token(chosen, discovered, _tokens(chosen, discovered, code, flow))
    if not secrets.compare_digest(str(claims.get("nonce", "")), flow["nonce"]):
        raise SignInFailed("the ID token's nonce is not this sign-in's")
    email = str(claims.get("email") or "").strip().lower()
    if not email or claims.get("email_verified") is not True:
        raise Forbidden(f"{chosen.label} did not vouch for an email address (email_verified); "
                        "ask its admin, or sign in otherwise")
    return _user(session, chosen, email, claims), flow["next"]


def safe_next(path: str) -> str:
    """A path of the dashboard to land on, never another site."""
    return path if path.startswith("/") and not path.startswith(("//", "/\\")) else "/"


def _user(session: Session, chosen: Provider, email: str, claims: dict[str, Any]) -> User:
    user = session.scalar(select(User).where(func.lower(User.email) == email))
    if user is not None:
        if not user.is_active:
            raise Forbidden("this account is deactivated")
        return user
    if not chosen.create_users:
        raise Forbidden(f"{email} has no account here, and {chosen.label} does not create "
                        "them: ask an admin")
    name = str(claims.get("name") or "")[:200] or None
    projects.ensure(session, get_settings().default_project)  # where a new account lands
    # A password no one knows: the account signs in through its provider.
    return create_user(session, UserCreate(email=email, name=name, role=Role.member,
                                           password=secrets.token_urlsafe(48)))


def _tokens(chosen: Provider, discovered: dict[str, Any], code: str,
            flow: dict[str, Any]) -> dict[str, Any]:
    body = {"grant_type": "authorization_code", "code": code,
            "redirect_uri": flow["redirect_uri"], "code_verifier": flow["verifier"]}
    methods = discovered.get("token_endpoint_auth_methods_supported",
                             ["client_secret_basic"])
    auth = None
    if "client_secret_basic" in methods:
        auth = (chosen.client_id, chosen.client_secret)
    else:
        body |= {"client_id": chosen.client_id, "client_secret": chosen.client_secret}
    try:
        answer = httpx.post(discovered["token_endpoint"], data=body, auth=auth,
                            timeout=get_settings().oidc_timeout_s)
    except httpx.HTTPError as error:
        raise SignInFailed(f"{chosen.label} could not be reached: {error}") from error
    if answer.status_code != 200:
        raise SignInFailed(f"{chosen.label} refused the sign-in's code "
                           f"(HTTP {answer.status_code}: {answer.text[:200]})")
    tokens: dict[str, Any] = answer.json()
    return tokens


def _id_token(chosen: Provider, discovered: dict[str, Any],
              tokens: dict[str, Any]) -> dict[str, Any]:
    token = tokens.get("id_token")
    if not token:
        raise SignInFailed(f"{chosen.label} sent no ID token")
    algorithms = discovered.get("id_token_signing_alg_values_supported", ["RS256"])
    try:
        key = _jwks(discovered["jwks_uri"]).get_signing_key_from_jwt(token)
        claims: dict[str, Any] = jwt.decode(
            token, key.key, algorithms=[a for a in algorithms if a != "none"],
            audience=chosen.client_id, issuer=discovered["issuer"],
            options={"require": ["exp", "iat", "iss", "aud", "sub"]}, leeway=30)
    except jwt.PyJWTError as error:
        raise SignInFailed(f"{chosen.label}'s ID token does not hold: {error}") from error
    return claims


_discovered: dict[str, tuple[float, dict[str, Any]]] = {}


def _discovery(issuer: str) -> dict[str, Any]:
    cached = _discovered.get(issuer)
    if cached and time.monotonic() - cached[0] < DISCOVERY_TTL_S:
        return cached[1]
    try:
        answer = httpx.get(f"{issuer}/.well-known/openid-configuration",
                           timeout=get_settings().oidc_timeout_s)
        answer.raise_for_status()
        document: dict[str, Any] = answer.json()
    except (httpx.HTTPError, ValueError) as error:
        raise SignInFailed(f"the sign-in provider at {issuer} could not be read: {error}"
                           ) from error
    if document.get("issuer", "").rstrip("/") != issuer:
        raise SignInFailed(f"{issuer} names itself {document.get('issuer')!r}")
    _discovered[issuer] = (time.monotonic(), document)
    return document


@lru_cache(maxsize=16)
def _jwks(uri: str) -> jwt.PyJWKClient:
    return jwt.PyJWKClient(uri, cache_keys=True, lifespan=DISCOVERY_TTL_S,
                           timeout=int(get_settings().oidc_timeout_s))
