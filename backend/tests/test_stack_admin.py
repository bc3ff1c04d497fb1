"""`make up`'s first look at a new lab: the admin `latlab-ensure-admin` makes, its generated
password printed once, is what the supervisor (`latlab_stack.up`) reads back to sign in and
launch the first job through the API; an admin made earlier (password not printed) is no
new lab."""

import pytest

from latlab.admin import ensure_admin
from latlab_stack.up import _credentials


def test_the_admin_printed_for_a_new_lab_is_read_back_and_signs_in(
        committed_db, client, capsys, monkeypatch) -> None:
    monkeypatch.setenv("LATLAB_ADMIN_EMAIL", "First@Latlab.local")
    monkeypatch.delenv("LATLAB_ADMIN_PASSWORD", raising=False)
    ensure_admin()
    made = capsys.readouterr().out.strip()
    signed_in = _credentials(made, None)
    assert signed_in is not None and signed_in[0] == "first@latlab.local"
    answer = client.post("/api/v1/auth/login",
                         json={"email": signed_in[0], "password": signed_in[1]})
    assert answer.status_code == 200, answer.text

    ensure_admin()  # make up again: the same admin, its password not printed again
    again = capsys.readouterr().out.strip()
    assert signed_in[1] not in again and _credentials(again, None) is None


def test_an_admin_password_from_the_environment_signs_in(committed_db, client, capsys,
                                                         monkeypatch) -> None:
    monkeypatch.setenv("LATLAB_ADMIN_EMAIL", "second@latlab.local")
    monkeypatch.setenv("LATLAB_ADMIN_PASSWORD", "a long enough password")
    ensure_admin()
    signed_in = _credentials(capsys.readouterr().out.strip(), "a long enough password")
    assert signed_in == ("second@latlab.local", "a long enough password")
    answer = client.post("/api/v1/auth/login",
                         json={"email": signed_in[0], "password": signed_in[1]})
    assert answer.status_code == 200, answer.text


@pytest.mark.parametrize("printed", [
    "admin: a@b.c  password: unchanged (printed when it was created; set "
    "LATLAB_ADMIN_PASSWORD to reset it)",
    "admin created: a@b.c  password: (from LATLAB_ADMIN_PASSWORD)",  # and none given
    "admin created: a@b.c  password: ", ""])
def test_no_password_printed_no_first_job(printed: str) -> None:
    assert _credentials(printed, None) is None
