"""How every latlab process talks to the broker (Redis): one Celery configuration for the
api's sender, the ingest and alerts workers, beat and the runners.

A worker must outlive a broker restart. Celery's gossip, mingle and event-heartbeat steps keep
channels of their own on the broker; after a Redis restart, restarting them touches a closed
connection (`Error on restarting Gossip: AttributeError: 'NoneType' object has no attribute
...`; celery/kombu #582, celery #8030, #8091), which can kill or silence a worker. latlab uses
none of them (hosts announce themselves with tasks, and task ids are never reused, so revoked
ids need no sharing), so its consumer leaves them out. Every socket has a timeout, so a frozen
broker is an error after seconds, never a hang, and workers retry the connection forever; an
acknowledgement the broker did not take leaves the worker free to take the next task (`QoS`).
"""

import contextlib
from typing import Any

import redis
from celery.worker.consumer import Consumer as CeleryConsumer
from kombu.exceptions import KombuError
from kombu.transport import redis as kombu_redis
from kombu.transport import virtual

# Seconds: a publish to a broker that does not answer fails after this long.
SOCKET_TIMEOUT_S = 5.0
CONNECT_TIMEOUT_S = 2.0

# What sending to a broker that is down or frozen raises.
BROKER_ERRORS = (KombuError, redis.RedisError, OSError)

TRANSPORT_OPTIONS: dict[str, Any] = {
    "socket_timeout": SOCKET_TIMEOUT_S,
    "socket_connect_timeout": CONNECT_TIMEOUT_S,
    # A consumer on a half-open connection reconnects within brpop_timeout + 2 x this.
    "health_check_interval": 5,
}


# kombu's, untyped: acknowledgements over Redis, and the channel's own book of held messages.
_RedisQoS: Any = kombu_redis.QoS
_book_ack: Any = virtual.QoS.ack


class QoS(_RedisQoS):  # type: ignore[misc]  # kombu ships no types
    """kombu's acknowledgements over Redis, for a broker that stops answering mid-ack.

    kombu acknowledges a message by removing it from the broker's unacked set, then from the
    channel's own book of messages held. When the removal fails (Redis frozen: a socket
    timeout, "Couldn't ack") the book keeps the message, and a worker that takes one message
    at a time never takes another: it stays connected and idle for good (celery#2415; seen
    here when a chaos soak froze Redis as the ingest worker acknowledged a result, and every
    job outcome and watchdog pass after it waited). Here the book lets the message go either
    way, and a removal that failed is owed: tried again with the next acknowledgement and
    before the next message is recorded. A worker killed meanwhile leaves the message in its
    node's unacked set, given back when it starts again (`NodeConsumer`): a finished task
    run once more, which tasks allow."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.owed: set[str] = set()

    def append(self, message: Any, delivery_tag: str) -> None:
        with contextlib.suppress(*BROKER_ERRORS):
            self._settle_owed()
        super().append(message, delivery_tag)

    def ack(self, delivery_tag: str) -> None:
        self.owed.add(delivery_tag)
        try:
            self._settle_owed()
        finally:
            _book_ack(self, delivery_tag)

    def reject(self, delivery_tag: str, requeue: bool = False) -> None:
        try:
            super().reject(delivery_tag, requeue)
        finally:  # a failed give-back leaves it unacked: given back as a killed worker's is
            _book_ack(self, delivery_tag)

    def _settle_owed(self) -> None:
        for tag in sorted(self.owed):
            self._remove_from_indices(tag).execute()
            self.owed.discard(tag)


# Every Redis channel of every latlab process acknowledges this way.
kombu_redis.Channel.QoS = QoS


class Consumer(CeleryConsumer):  # type: ignore[misc]  # Celery ships no types
    """Celery's consumer without the gossip, mingle and heartbeat steps, as
    `celery worker --without-gossip --without-mingle --without-heartbeat` would run it,
    whoever starts the worker and with whatever flags."""

    def __init__(self, *args: Any, worker_options: dict[str, Any] | None = None,
                 **kwargs: Any) -> None:
        options = {**(worker_options or {}), "without_gossip": True, "without_mingle": True,
                   "without_heartbeat": True}
        super().__init__(*args, worker_options=options, **kwargs)

    def on_connection_error_after_connected(self, exc: Exception) -> None:
        """The broker went away while this worker held messages (running, or waiting for
        their countdown). Celery then closes the lost connection, and two things touched it
        after kombu had torn its transport down, each killing the worker (`Unrecoverable
        error: AttributeError: 'NoneType' object has no attribute 'hostname'` / `'client'`;
        celery 5.7, kombu 5.7): closing a channel gives its unacknowledged messages back,
        and a task ending later acknowledges its message, both through that transport.
        Neither can reach a broker that is gone: the lost connection's channels give back
        and acknowledge nothing. Their messages stay in the broker's unacknowledged set (or
        went with it), from which the broker's visibility timeout returns them; tasks are
        idempotent, so one that ran meanwhile is harmless when it comes back."""
        transport = self.connection and self.connection._transport
        for channel in list(getattr(transport, "channels", ())):
            channel.do_restore = False
            channel.basic_ack = channel.basic_reject = _nothing
        super().on_connection_error_after_connected(exc)


class NodeConsumer(Consumer):
    """A consumer that keeps the messages it holds under its own node name and, when its
    worker starts, gives back what a previous worker of that name held.

    Redis keeps a message a worker has taken but not acknowledged in an `unacked` hash, and
    every worker returns the entries older than the visibility timeout (an hour) to their
    queue. A worker killed while it held a message (SIGKILL, a machine lost) left that message
    there for the hour: a runner's outcome then waited, and the watchdog re-ran the whole job
    instead. Here each node has keys of its own (kombu's `unacked_key`, `unacked_index_key`,
    `unacked_mutex_key`), so when a node starts, whatever its keys hold belonged to an earlier
    process of the same name, which is dead (supervisord starts a worker again under its
    name), and goes back to its queue at once, before this one consumes anything. Node names
    must therefore be unique among live workers (`-n ingest@%h`: one per host; a second on the
    same host needs a name of its own). Only at the process's first connection: after a
    broker loss, the messages this process still runs are its own. A name that never comes
    back leaves its messages to the watchdog and beat's sweep."""

    _restored = False

    def connection_for_read(self, heartbeat: float | None = None) -> Any:
        keys = {f"{key}_key": f"{key}:{self.hostname}"
                for key in ("unacked", "unacked_index", "unacked_mutex")}
        return self.ensure_connected(self.app.connection_for_read(
            heartbeat=heartbeat, transport_options=keys))

    def connect(self) -> Any:
        connection = super().connect()
        if not self._restored:
            channel = connection.default_channel
            for tag in channel.client.hkeys(channel.unacked_key):
                channel.qos.restore_by_tag(tag)
            self._restored = True
        return connection


def tls_options(ca: str, certificate: str, key: str) -> dict[str, str] | None:
    """How a client reaches a broker over TLS (`rediss://`): it believes the broker on the
    lab's CA only, and shows its own certificate of that CA (the broker asks for one). The
    same options suit redis-py and Celery's `broker_use_ssl`. None without a CA: plain
    `redis://`, for a broker on loopback."""
    if not ca:
        return None
    return {"ssl_ca_certs": ca, "ssl_certfile": certificate, "ssl_keyfile": key,
            "ssl_cert_reqs": "required"}


def _nothing(*_: Any, **__: Any) -> None:
    """What a channel of a lost connection does when asked to acknowledge or reject."""


# Both Celery apps (ingest and runner): a task is acknowledged only once done, and given back
# to the queue when its worker dies; one message at a time; results are not kept.
CELERY_DEFAULTS: dict[str, Any] = {
    "task_acks_late": True,
    "task_reject_on_worker_lost": True,
    "worker_prefetch_multiplier": 1,
    "task_ignore_result": True,
    "broker_connection_retry_on_startup": True,
    "broker_connection_max_retries": None,  # a worker waits for its broker, however long
    # Tasks running when the broker goes away finish (Celery 6 would cancel them).
    "worker_cancel_long_running_tasks_on_connection_loss": False,
    "broker_connection_timeout": CONNECT_TIMEOUT_S,
    "broker_transport_options": TRANSPORT_OPTIONS,
    "worker_consumer": "latlab_contract.broker:Consumer",
}


# kombu's separator between a queue's name and its priority (queue "x" at priority 3 is the
# list "x\x06\x163").
_PRIORITY_SEP = b"\x06\x16"


def runner_transport_keys(host_name: str) -> dict[str, str]:
    """Where a host's runner keeps the messages it holds (kombu's unacked hash, its index and
    mutex): keys of its host's own, which no other host's runner reads."""
    return {f"{key}_key": f"{key}:host.{host_name}"
            for key in ("unacked", "unacked_index", "unacked_mutex")}


def runner_acl_rules(host_name: str) -> list[bytes]:
    """What a host's broker user may do (Redis ACL rules, after `reset`): consume its own
    queue (its priority lists, bindings and the messages it holds), push to the runners'
    queue (`INGEST_QUEUE`) without reading it, and read which attempt the lab expects of a
    job; every command but the dangerous and administrative ones, on those keys only, and no
    channel (runners take no remote control)."""
    queue = f"host.{host_name}".encode()
    own = [queue, queue + _PRIORITY_SEP + b"?", b"_kombu.binding." + queue,
           b"_kombu.binding_permanent." + queue,
           *(key.encode() for key in runner_transport_keys(host_name).values())]
    # The runners' queue: written, never read (its length is no read), and declared by
    # Celery before it publishes (the bindings it adds are never consulted: runners publish
    # to the queue itself, by the default exchange).
    ingest = [b"ingest", b"ingest" + _PRIORITY_SEP + b"?", b"_kombu.binding.ingest",
              b"_kombu.binding_permanent.ingest"]
    return [*(b"~" + key for key in own), *(b"%W~" + key for key in ingest),
            b"%R~latlab:attempt:*", b"+@all", b"-@dangerous"]
