"""Settings > Channels in Chromium: a channel whose deliveries keep failing (three real
attempts at a receiver answering 503) shows as failing, and is muted from the page."""

import os
import subprocess
import time
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from latlab.alerts import delivery
from latlab.models import Channel, Notification, Project
from tests.conftest import Actors, allow_private_webhooks, wait_for
from tests.test_alerts_e2e import Receiver
from tests.test_delivery import _messages

FRONTEND = Path(__file__).resolve().parents[2] / "frontend"


def _refreshed(session: Session, channel: Channel) -> str:
    session.expire_all()
    session.refresh(channel)
    return delivery.channel_status(channel)


def test_a_failing_channel_is_shown_and_muted_in_the_browser(committed_db, live_server,
                                                             clock) -> None:
    receiver = Receiver()
    try:
        user = Actors(committed_db).user()
        allow_private_webhooks(committed_db)
        project_id = committed_db.scalar(select(Project.id).where(Project.slug == "default"))
        channel = Channel(project_id=project_id, name="on-call", kind="webhook",
                          url=receiver.url, created_at=clock.now())
        committed_db.add(channel)
        committed_db.flush()
        (message,) = _messages(committed_db, channel, clock)
        receiver.script = [503] * 100  # an alerts worker of the session may try too
        for attempt in range(1, 4):
            delivery.deliver(committed_db, message)
            clock.advance(seconds=delivery.backoff(attempt).total_seconds())
        # Each attempt commits, so the session's alerts worker, if one runs, may take some.
        wait_for(lambda: _refreshed(committed_db, channel) == "failing", timeout=30)
        assert receiver.requests >= 3
        completed = subprocess.run(
            ["node", "--test", "tests/e2e/channels.test.mjs"], cwd=FRONTEND,
            env={**os.environ, "LATLAB_URL": live_server, "LATLAB_EMAIL": user.email,
                 "LATLAB_PASSWORD": "correct horse battery", "LATLAB_CHANNEL": "on-call"},
            capture_output=True, text=True, timeout=300, check=False)
        assert completed.returncode == 0, completed.stdout[-6000:] + completed.stderr[-4000:]
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
    finally:
        receiver.stop()

