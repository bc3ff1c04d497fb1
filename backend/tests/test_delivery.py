"""Alert delivery, one attempt at a time, against a real local receiver: one chain of attempts
per message, backoff shared by a channel's messages, failing and muted channels, and an
attempt bounded in time against a receiver that never answers."""

import socket
import threading
from datetime import timedelta

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from latlab.alerts import delivery, lifecycle
from latlab.core.settings import get_settings
from latlab.models import Channel, DeliveryAttempt, Notification, OutboxMessage
from tests.factories import allow_private_webhooks, notified, webhook


def _deliver_tasks(db: Session, notification_id: int) -> int:
    return db.scalar(select(func.count()).select_from(OutboxMessage).where(
        OutboxMessage.task == lifecycle.DELIVER,
        OutboxMessage.kwargs["notification_id"].as_integer() == notification_id)) or 0


def test_a_message_has_one_chain_of_attempts_that_honours_its_time(db, clock,
                                                                   receiver) -> None:
    channel = webhook(db, receiver.url, clock.now())
    (message,) = notified(db, channel, clock.now())
    assert _deliver_tasks(db, message) == 1
    receiver.script = [500, 500]
    delivery.deliver(db, message)
    notification = db.get(Notification, message)
    assert receiver.requests == 1 and notification.status == "pending"
    assert notification.next_attempt_at == clock.now() + delivery.backoff(1)
    assert _deliver_tasks(db, message) == 2  # its next attempt, counted down

    # A duplicate task, or the sweep for lost tasks, starts no second chain.
    delivery.deliver(db, message)
    assert delivery.redeliver_due(db) == 0
    clock.advance(seconds=delivery.backoff(1).total_seconds() / 2)
    delivery.deliver(db, message)
    assert receiver.requests == 1 and _deliver_tasks(db, message) == 2

    clock.advance(seconds=delivery.backoff(1).total_seconds())
    delivery.deliver(db, message)
    assert receiver.requests == 2 and notification.attempts == 2
    assert notification.next_attempt_at == clock.now() + delivery.backoff(2)
    clock.advance(seconds=delivery.backoff(2).total_seconds())
    delivery.deliver(db, message)
    assert notification.status == "sent" and receiver.requests == 3
    assert len(receiver.messages) == 1
    # A task lost on the way is found by the sweep once overdue, and only then.
    (late,) = notified(db, channel, clock.now())
    assert delivery.redeliver_due(db) == 0
    clock.advance(seconds=delivery.LOST_AFTER.total_seconds())
    assert delivery.redeliver_due(db) == 1 and _deliver_tasks(db, late) == 2


def test_a_failing_channel_backs_off_once_for_all_its_messages(db, clock, receiver) -> None:
    channel = webhook(db, receiver.url, clock.now())
    first, second, third = notified(db, channel, clock.now(), n=3)
    receiver.script = [503] * 3
    for attempt in range(1, 4):
        delivery.deliver(db, first)
        assert receiver.requests == attempt
        # The others wait for the channel instead of trying on their own.
        delivery.deliver(db, second)
        delivery.deliver(db, third)
        assert receiver.requests == attempt
        assert db.get(Notification, second).next_attempt_at == channel.retry_at
        clock.advance(seconds=delivery.backoff(attempt).total_seconds())
    assert channel.consecutive_failures == 3 and delivery.channel_status(channel) == "failing"
    assert channel.last_error == "HTTP 503: error" and channel.failing_since is not None
    delivery.deliver(db, first)  # the receiver answers again
    assert db.get(Notification, first).status == "sent" and channel.retry_at is None
    assert delivery.channel_status(channel) == "ok"
    # The waiting messages are due now; each one is delivered once.
    for message in (second, third):
        assert db.get(Notification, message).next_attempt_at <= clock.now()
        delivery.deliver(db, message)
        delivery.deliver(db, message)
    assert [m["message"] for m in receiver.messages] == ["alert 0", "alert 1", "alert 2"]
    assert db.scalar(select(func.count()).select_from(DeliveryAttempt)) == 6


def test_a_refusal_fails_for_good_and_a_muted_channel_is_sent_nothing(db, clock,
                                                                      receiver) -> None:
    channel = webhook(db, receiver.url, clock.now())
    refused, waiting = notified(db, channel, clock.now(), n=2)
    receiver.script = [404]
    delivery.deliver(db, refused)
    assert db.get(Notification, refused).status == "failed" and channel.retry_at is None
    delivery.mute(db, channel, True)
    assert db.get(Notification, waiting).status == "muted"
    assert delivery.channel_status(channel) == "muted"
    (later,) = notified(db, channel, clock.now())
    assert db.get(Notification, later).status == "muted" and _deliver_tasks(db, later) == 0
    delivery.deliver(db, waiting)
    assert receiver.requests == 1
    delivery.mute(db, channel, False)
    (fresh,) = notified(db, channel, clock.now())
    delivery.deliver(db, fresh)
    assert db.get(Notification, fresh).status == "sent" and receiver.requests == 2


def test_an_attempt_at_a_receiver_that_never_answers_is_bounded(db, clock,
                                                                monkeypatch) -> None:
    monkeypatch.setattr(get_settings(), "delivery_timeout_s", 1.0)
    with socket.create_server(("127.0.0.1", 0)) as silent:  # accepts, never answers
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/hook"
        for kind in ("webhook", "slack"):
            status, error = delivery.send(kind, url, {"event": "test", "message": "hello"},
                                          allow_private=True)
            assert status is None and error is not None and "timed out" in error.lower(), error
        channel = webhook(db, url, clock.now())
        (message,) = notified(db, channel, clock.now())
        delivery.deliver(db, message)
    notification = db.get(Notification, message)
    assert notification.status == "pending" and notification.attempts == 1
    assert channel.consecutive_failures == 1 and channel.retry_at is not None


def test_muting_a_channel_while_its_message_is_being_sent_waits_for_nothing(
        committed_db, engine, clock, monkeypatch) -> None:
    """A delivery posts holding no lock, then takes the channel's lock before its message's,
    as muting does (a delivery used to hold its message while it posted, then wait for the
    channel: Postgres found the deadlock with a mute and failed one side with a 503). The
    attempt in flight is recorded and, having failed, leaves its message muted."""
    monkeypatch.setattr(get_settings(), "delivery_timeout_s", 2.0)
    with socket.create_server(("127.0.0.1", 0)) as silent:  # accepts, never answers
        silent.settimeout(10)
        channel = webhook(committed_db, f"http://127.0.0.1:{silent.getsockname()[1]}/hook",
                          clock.now())
        in_flight, waiting = notified(committed_db, channel, clock.now(), n=2)
        # Out of reach of the session's alerts worker and beat: no task is sent for them and
        # they fall due only by this test's clock, a year on.
        committed_db.execute(delete(OutboxMessage))
        committed_db.execute(update(Notification).values(
            next_attempt_at=clock.now() + timedelta(days=365)))
        committed_db.commit()
        clock.advance(days=365)
        errors: list[BaseException] = []

        def send() -> None:
            try:
                with Session(engine) as session:
                    delivery.deliver(session, in_flight)
            except BaseException as error:  # reported by the assertion below
                errors.append(error)

        sender = threading.Thread(target=send)
        sender.start()
        connection, _ = silent.accept()  # the delivery is posting, its message locked
        with connection, Session(engine) as session, session.begin():
            own = session.get(Channel, channel.id)
            assert own is not None
            delivery.mute(session, own, True)
        sender.join(timeout=30)
        assert not sender.is_alive() and errors == []
    committed_db.expire_all()
    assert committed_db.get(Notification, waiting).status == "muted"
    flown = committed_db.get(Notification, in_flight)
    assert flown.status == "muted" and flown.attempts == 1


def test_channels_show_their_health_and_can_be_muted(client, actors, db, clock,
                                                     receiver) -> None:
    actors.login(client)
    allow_private_webhooks(db)
    created = client.post("/api/v1/channels", json={"name": "hook", "kind": "webhook",
                                                    "url": receiver.url}).json()
    assert created["status"] == "ok" and created["muted"] is False
    channel = db.get(Channel, created["id"])
    (message,) = notified(db, channel, clock.now())
    receiver.script = [500] * 3
    for attempt in range(1, 4):
        delivery.deliver(db, message)
        clock.advance(seconds=delivery.backoff(attempt).total_seconds())
    (listed,) = client.get("/api/v1/channels").json()
    assert listed["status"] == "failing" and listed["consecutive_failures"] == 3
    assert listed["last_error"] == "HTTP 500: error" and "url" not in listed
    muted = client.patch(f"/api/v1/channels/{channel.id}", json={"muted": True})
    assert muted.status_code == 200 and muted.json()["status"] == "muted"
    assert db.get(Notification, message).status == "muted"
    assert client.patch("/api/v1/channels/999999", json={"muted": True}).status_code == 404


def test_an_attempt_is_recorded_before_it_is_made_and_holds_its_message(
        committed_db, engine, clock, monkeypatch) -> None:
    """While a POST waits, its attempt is already committed (cut off until its answer comes)
    and counted, and holds its message: a duplicate task sends nothing; a redelivered one
    (its worker died mid-send) sends, as attempt 2."""
    monkeypatch.setattr(get_settings(), "delivery_timeout_s", 2.0)
    with socket.create_server(("127.0.0.1", 0)) as silent:  # accepts, never answers
        silent.settimeout(10)
        channel = webhook(committed_db, f"http://127.0.0.1:{silent.getsockname()[1]}/hook",
                          clock.now())
        (message,) = notified(committed_db, channel, clock.now())
        committed_db.execute(delete(OutboxMessage))  # out of reach of the session's worker
        committed_db.execute(update(Notification).values(
            next_attempt_at=clock.now() + timedelta(days=365)))
        committed_db.commit()
        clock.advance(days=365)
        def send() -> None:
            with Session(engine) as session:
                delivery.deliver(session, message)

        sender = threading.Thread(target=send)
        sender.start()
        connection, _ = silent.accept()  # the first attempt is posting
        with connection, Session(engine) as session:
            (attempt,) = session.scalars(select(DeliveryAttempt)).all()
            assert (attempt.ok, attempt.error) == (False, delivery.CUT_OFF)
            assert session.get_one(Notification, message).attempts == 1
            delivery.deliver(session, message)  # a duplicate task
            assert session.scalar(select(func.count()).select_from(DeliveryAttempt)) == 1
            delivery.deliver(session, message, redelivered=True)
            sender.join(timeout=30)
        assert not sender.is_alive()
    committed_db.expire_all()
    attempts = committed_db.scalars(select(DeliveryAttempt).order_by(DeliveryAttempt.id)).all()
    assert len(attempts) == 2 and all("timed out" in (a.error or "").lower() for a in attempts)
    assert committed_db.get_one(Notification, message).attempts == 2
