"""Settings > Channels in Chromium: a channel whose deliveries keep failing (three real
attempts at a receiver answering 503) shows as failing, and is muted from the page."""

import time

from sqlalchemy import select
from sqlalchemy.orm import Session

from latlab.alerts import delivery
from latlab.models import Channel, Notification
from tests.browser import run_browser
from tests.conftest import wait_for
from tests.factories import Actors, notified, webhook


def _refreshed(session: Session, channel: Channel) -> str:
    session.expire_all()
    session.refresh(channel)
    return delivery.channel_status(channel)


def test_a_failing_channel_is_shown_and_muted_in_the_browser(committed_db, live_server,
                                                             clock, receiver) -> None:
    user = Actors(committed_db).user()
    channel = webhook(committed_db, receiver.url, clock.now(), name="on-call")
    (message,) = notified(committed_db, channel, clock.now())
    receiver.script = [503] * 100  # an alerts worker of the session may try too
    for attempt in range(1, 4):
        delivery.deliver(committed_db, message)
        clock.advance(seconds=delivery.backoff(attempt).total_seconds())
    # Each attempt commits, so the session's alerts worker, if one runs, may take some.
    wait_for(lambda: _refreshed(committed_db, channel) == "failing", timeout=30)
    assert receiver.requests >= 3
    run_browser("channels", live_server, email=user.email, LATLAB_CHANNEL="on-call")
    committed_db.expire_all()
    assert committed_db.get(Channel, channel.id).muted
    # An attempt by the session's alerts worker may be in flight as the mute commits; it
    # marks the message muted as it ends (test_delivery covers that race alone).
    deadline = time.monotonic() + 30
    while committed_db.scalar(select(Notification.status).where(
            Notification.id == message)) == "pending" and time.monotonic() < deadline:
        committed_db.rollback()
        time.sleep(0.2)
    assert committed_db.scalar(select(Notification.status).where(
        Notification.id == message)) == "muted"

