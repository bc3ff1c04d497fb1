"""Single sign-on against Keycloak, a real OpenID Connect provider started by the test
(tests/sso/keycloak.py): the authorization code flow with PKCE from the lab's start address to
its session cookie, a verified email matched or made a member, an unverified one refused, a
state that is not this browser's or already used refused, a provider that does not create
users, passwords turned off; and in Chromium, the sign-in page's button through Keycloak's
own form to the dashboard."""

import html
import os
import re
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from latlab.auth import service as auth_service
from latlab.auth.schemas import UserCreate
from latlab.models import Role
from tests.browser import assert_built, run_browser
from tests.conftest import start_api
from tests.sso.keycloak import CLIENT_ID, CLIENT_SECRET, USERS, keycloak


@pytest.fixture(scope="module")
def issuer() -> Iterator[str]:
    with keycloak() as url:
        yield url


@pytest.fixture(scope="module")
def sso_api(issuer, tmp_path_factory) -> Iterator[str]:
    """The api with two providers on the same realm: `kc` makes accounts, `kc-closed` does
    not."""
    config = tmp_path_factory.mktemp("sso") / "providers.toml"
    config.write_text("\n".join(
        f'[[provider]]\nname = "{name}"\nlabel = "{label}"\nissuer = "{issuer}"\n'
        f'client_id = "{CLIENT_ID}"\nclient_secret_env = "LATLAB_TEST_KC_SECRET"\n'
        f'create_users = {creates}\n'
        for name, label, creates in (("kc", "Keycloak", "true"),
                                     ("kc-closed", "Keycloak (closed)", "false"))))
    os.environ["LATLAB_TEST_KC_SECRET"] = CLIENT_SECRET
    url, process = start_api(LATLAB_OIDC_PROVIDERS=str(config))
    yield url
    process.terminate()
    process.wait(timeout=30)


def _insecure(browser: httpx.Client) -> None:
    """Keycloak's cookies are `Secure`, which a browser sends to http://127.0.0.1 (a secure
    context) and httpx does not: mark them sendable over the tests' plain http."""
    for cookie in browser.cookies.jar:
        cookie.secure = False


def _sign_in(api: str, user: str, provider: str = "kc",
             client: httpx.Client | None = None) -> tuple[httpx.Client, httpx.Response]:
    """Start at the lab, sign in on Keycloak's form, and stop at the lab's callback's answer
    (not followed)."""
    browser = client or httpx.Client(timeout=30)
    started = browser.get(f"{api}/api/v1/auth/oidc/{provider}/start",
                          params={"next": "/runs?suite=echo"})
    assert started.status_code == 302, started.text
    form = browser.get(started.headers["location"])
    assert form.status_code == 200, form.text[:500]
    _insecure(browser)
    action = html.unescape(re.search(r'id="kc-form-login"[^>]*action="([^"]+)"',
                                     form.text, re.S).group(1))
    back = browser.post(action, data={"username": user, "password": USERS[user],
                                      "credentialId": ""})
    assert back.status_code == 302, back.text[:500]
    callback = back.headers["location"]
    assert callback.startswith(f"{api}/api/v1/auth/oidc/{provider}/callback?")
    return browser, browser.get(callback)


def test_a_verified_email_signs_in_and_lands_where_it_started(sso_api, committed_db) -> None:
    browser, answer = _sign_in(sso_api, "ada")
    assert answer.status_code == 302 and answer.headers["location"] == "/runs?suite=echo"
    me = browser.get(f"{sso_api}/api/v1/auth/me")
    assert me.status_code == 200, me.text
    assert (me.json()["email"], me.json()["role"]) == ("ada@lab.test", "member")
    # The next sign-in finds the same account.
    again, second = _sign_in(sso_api, "ada")
    assert second.status_code == 302
    assert again.get(f"{sso_api}/api/v1/auth/me").json()["id"] == me.json()["id"]


def test_an_unverified_email_is_refused(sso_api) -> None:
    browser, answer = _sign_in(sso_api, "eve")
    assert answer.status_code == 302
    landing = urlsplit(answer.headers["location"])
    assert landing.path == "/login"
    assert "did not vouch for an email address" in parse_qs(landing.query)["error"][0]
    assert browser.get(f"{sso_api}/api/v1/auth/me").status_code == 401


def test_a_state_from_another_browser_or_used_twice_is_refused(sso_api) -> None:
    browser = httpx.Client(timeout=30)
    started = browser.get(f"{sso_api}/api/v1/auth/oidc/kc/start")
    form = browser.get(started.headers["location"])
    _insecure(browser)
    action = html.unescape(re.search(r'id="kc-form-login"[^>]*action="([^"]+)"',
                                     form.text, re.S).group(1))
    callback = browser.post(action, data={"username": "ada",
                                          "password": USERS["ada"]}).headers["location"]
    stranger = httpx.Client(timeout=30).get(callback)  # no state cookie: not its sign-in
    assert "not started in this browser" in parse_qs(
        urlsplit(stranger.headers["location"]).query)["error"][0]
    first = browser.get(callback)
    assert first.headers["location"] == "/"
    browser.cookies.set("latlab_oidc", parse_qs(urlsplit(callback).query)["state"][0])
    replayed = browser.get(callback)
    assert "expired or was already used" in parse_qs(
        urlsplit(replayed.headers["location"]).query)["error"][0]


def test_a_provider_that_does_not_create_accounts(sso_api, committed_db) -> None:
    _, refused = _sign_in(sso_api, "bob", provider="kc-closed")
    error = parse_qs(urlsplit(refused.headers["location"]).query)["error"][0]
    assert "bob@lab.test has no account here" in error
    auth_service.create_user(committed_db, UserCreate(
        email="bob@lab.test", password="unused-password-1", role=Role.viewer))
    committed_db.commit()
    browser, known = _sign_in(sso_api, "bob", provider="kc-closed")
    assert known.headers["location"] == "/runs?suite=echo"
    assert browser.get(f"{sso_api}/api/v1/auth/me").json()["role"] == "viewer"


def test_with_passwords_off_only_the_providers_sign_in(issuer, tmp_path) -> None:
    config = tmp_path / "providers.toml"
    config.write_text(f'[[provider]]\nname = "kc"\nlabel = "Keycloak"\nissuer = "{issuer}"\n'
                      f'client_id = "{CLIENT_ID}"\nclient_secret = "{CLIENT_SECRET}"\n')
    url, process = start_api(LATLAB_OIDC_PROVIDERS=str(config),
                             LATLAB_PASSWORD_SIGN_IN="false")
    try:
        options = httpx.get(f"{url}/api/v1/auth/providers").json()
        assert options == {"passwords": False,
                           "providers": [{"name": "kc", "label": "Keycloak"}]}
        refused = httpx.post(f"{url}/api/v1/auth/login", json={
            "email": "admin@lab.test", "password": "whatever-it-is"})
        assert refused.status_code == 403 and "password is off" in refused.text
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_the_sign_in_page_goes_through_keycloak(sso_api) -> None:
    assert_built()
    run_browser("sso", sso_api, LATLAB_SSO_USER="ada", LATLAB_SSO_PASSWORD=USERS["ada"])
