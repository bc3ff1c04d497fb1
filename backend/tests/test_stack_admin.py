"""`make up`'s first look at a new lab: the admin `latlab-ensure-admin` makes, its generated
password printed once, is what the supervisor (`latlab_stack.up`) reads back to sign in and
launch the first job through the API; an admin made earlier (password not printed) is no
new lab."""

import pytest

from latlab.admin import ensure_admin
from latlab_stack.up import _generated_password


def test_the_password_printed_for_a_new_admin_is_read_back_and_signs_in(
        committed_db, client, capsys, monkeypatch) -> None:
    monkeypatch.setenv("LATLAB_ADMIN_EMAIL", "first@latlab.local")
    monkeypatch.delenv("LATLAB_ADMIN_PASSWORD", raising=False)
    ensure_admin()
    made = capsys.readouterr().out.strip()
    password = _generated_password(made)
    assert password is not None and password in made
    answer = client.post("/api/v1/auth/login",
                         json={"email": "first@latlab.local", "password": password})
    assert answer.status_code == 200, answer.text

    ensure_admin()  # make up again: the same admin, its password not printed again
    again = capsys.readouterr().out.strip()
    assert password not in again and _generated_password(again) is None


@pytest.mark.parametrize("printed", [
    "admin: a@b.c  password: (from LATLAB_ADMIN_PASSWORD)",
    "admin created: a@b.c  password: (from LATLAB_ADMIN_PASSWORD)",  # make up has it already
    "admin created: a@b.c  password: ", ""])
def test_no_generated_password_no_first_job_sign_in(printed: str) -> None:
    assert _generated_password(printed) is None
