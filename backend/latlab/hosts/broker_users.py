"""Each host's own user on the broker (Redis ACL), made when it enrolls and deleted when it is
revoked: it may consume its own queue and push to the runners' queue, nothing else
(`latlab_contract.broker.runner_acl_rules`). The lab's processes use a user of their own; the
default user is off (`make up`: `latlab_stack.services.lab_user`).

A broker the lab reaches as its default user (one without users, as the tests' and many a
managed Redis's) has no users to give: hosts are then given the lab's own URL and share its
rights, and the lab's trust rests on message signing alone (`hosts.trust`).
"""

import secrets
from typing import Any, cast
from urllib.parse import urlsplit, urlunsplit

import redis

from latlab_contract.broker import runner_acl_rules


def user_of(host_name: str) -> str:
    return f"host-{host_name}"


def grant(client: redis.Redis, base_url: str, host_name: str) -> str:
    """The broker URL the host connects with: `base_url` with a new user of the host's own
    (a new password if it had one), or `base_url` itself on a broker without users."""
    if _without_users(client):
        return base_url
    password = secrets.token_hex(24)
    # redis-py's acl_setuser cannot say "%W~" (write-only keys): the rules go as they are.
    cast(Any, client).execute_command("ACL", "SETUSER", user_of(host_name), "reset", "on",
                                      f">{password}", *runner_acl_rules(host_name))
    _save(client)
    parts = urlsplit(base_url)
    address = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{user_of(host_name)}:{password}@{address}"))


def withdraw(client: redis.Redis, host_name: str) -> None:
    """Deletes the host's user; Redis closes its connections at once."""
    if _without_users(client):
        return
    client.acl_deluser(user_of(host_name))
    _save(client)


def _without_users(client: redis.Redis) -> bool:
    return bool(client.acl_whoami() in (b"default", "default"))


def _save(client: redis.Redis) -> None:
    """Writes the users to the broker's ACL file, so they outlive a restart (a broker with
    no ACL file keeps them in memory only: its own configuration's concern)."""
    try:
        client.acl_save()
    except redis.ResponseError as error:
        if "ACL file" not in str(error):
            raise
