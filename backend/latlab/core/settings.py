"""Settings of the backend processes (api, ingest worker, beat).

The runner worker has its own settings (in `latlab_workers`) and no database URL.
"""

from functools import lru_cache
from ipaddress import ip_network
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from latlab_contract.broker import tls_options


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="LATLAB_", extra="ignore")

    database_url: str = "postgresql+psycopg://latlab@127.0.0.1:54329/latlab"
    redis_url: str = "redis://127.0.0.1:63799/0"
    # The broker URL hosts that join (`latlab-runner join`) are given; empty: redis_url.
    runner_redis_url: str = ""
    # TLS to a broker beyond loopback (`rediss://`, `latlab.core.tls`): the lab's CA, these
    # processes' own certificate and key, and the CA's key, with which the api issues each
    # host's certificate at enrollment. Empty: plain `redis://`.
    broker_ca: str = ""
    broker_cert: str = ""
    broker_key: str = ""
    broker_ca_key: str = ""
    # Bounds on waiting for Postgres (seconds): connecting, and one statement.
    db_connect_timeout_s: int = 3
    db_statement_timeout_s: int = 120
    # The address people use to reach the dashboard; links in alerts and CLI output use it.
    public_url: str = "http://127.0.0.1:8000"
    # Run submissions above this size are refused with 413 before they are parsed.
    max_body_bytes: int = 64 * 1024 * 1024
    # Requests with bodies this large give their memory back once answered (0: never).
    release_memory_after_bytes: int = 1024 * 1024
    # Every other request body is small JSON.
    max_json_bytes: int = 1024 * 1024
    # A harness's output (`POST /runs?adapter=`) is read in a child process with this much
    # memory and time at most (`latlab.core.isolation`), two at a time.
    adapter_memory_mb: int = 2048
    adapter_deadline_s: float = 60.0
    session_days: int = 14
    default_project: str = "default"
    frontend_dist: str = ""
    # Sign-in throttling (`latlab.auth.throttle`), over a sliding window: an account with this
    # many failures refuses further sign-ins (429), except from a browser that signed in to it
    # before (its device cookie, kept this many days); an address with this many failures
    # spaces its further attempts by a delay that doubles with each failure, up to the
    # maximum, so one client behind a shared address slows itself, not everyone behind it.
    login_account_failures: int = 5
    login_address_failures: int = 20
    login_address_delay_s: float = 1.0
    login_address_delay_max_s: float = 60.0
    login_window_s: float = 900.0
    login_device_days: int = 90
    # Proxies (addresses or networks, comma-separated) whose X-Forwarded-For names the client;
    # the header is ignored from anyone else. Empty: the peer is the client.
    trusted_proxies: str = ""
    # Fair use (`latlab.core.rate_limits`): requests allowed per caller (an API token or a
    # signed-in user) and per client address, as a burst that refills over the window; 0 turns
    # a limit off. Above them: 429 with Retry-After. Sized so that one caller cannot take a
    # small api whole: on 2 vCPUs the api stores about 7 submissions a second, and a token may
    # make 2 a second, in bursts of 20 (`bench.fair_use`: the others' p95 within 2x of theirs
    # without the flood; at 10 a second in bursts of 600 it was 2.5x and the flood never got a
    # 429). A bigger host can allow more.
    rate_window_s: float = 10.0
    submissions_per_caller: int = 20
    submissions_per_address: int = 300
    job_launches_per_caller: int = 20
    job_launches_per_address: int = 60
    # Heavy reads: comparisons, trends, exports (summary.csv, .hlog) and profiles.
    heavy_reads_per_caller: int = 100
    heavy_reads_per_address: int = 300
    # The audit log (who changed users, projects, tokens, rules, channels, baselines,
    # schedules) is kept this many days; beat deletes older events.
    audit_retention_days: int = 365
    # A running job silent for this long is lost (its runner died): retried once, then failed.
    job_silence_s: float = 30.0
    # A dispatched job not picked up by its runner within this long is lost too.
    job_pickup_s: float = 60.0
    # The api's bare mirror of each registered repository, fetched to resolve a job's ref
    # and list recent commits (`repos.git`); a fetch or lookup may take this long.
    repo_mirrors: Path = Path.home() / ".cache" / "latlab" / "mirrors"
    git_timeout_s: float = 120.0
    # The built-in rule: a run that regresses against its baseline opens an alert.
    regression_alerts: bool = True
    # Improvements at least this large (percent) are raised too, as `improvement` alerts.
    improvement_alert_pct: float = 20.0
    # A schedule's launch with no run after its job's time limit plus this opens an alert.
    missing_data_grace_s: float = 300.0
    # Alert delivery retries: exponential backoff from this base, capped.
    delivery_backoff_s: float = 2.0
    delivery_backoff_max_s: float = 300.0
    # One delivery attempt waits this long at most for a receiver (connect, each read/write).
    delivery_timeout_s: float = 5.0
    # Email channels' SMTP server (`alerts.email`): none set, email channels are refused.
    smtp_host: str = ""
    smtp_port: int = 587
    smtp_security: Literal["starttls", "tls", "none"] = "starttls"
    smtp_user: str = ""
    smtp_password: str = ""
    smtp_from: str = "latlab@localhost"
    # A CA to trust beyond the system's (a private relay's certificate).
    smtp_ca_file: str = ""
    # Single sign-on (`auth.oidc`): a TOML file of OpenID Connect providers, each provider's
    # requests' time limit, and whether passwords remain a way in.
    oidc_providers: str = ""
    oidc_timeout_s: float = 10.0
    password_sign_in: bool = True
    # A digest channel's messages of the day go at this hour (UTC).
    digest_hour: int = Field(8, ge=0, le=23)

    @field_validator("trusted_proxies")
    @classmethod
    def _networks(cls, value: str) -> str:
        for each in value.split(","):
            if each.strip():
                ip_network(each.strip(), strict=False)  # a ValueError names the bad one
        return value

    @model_validator(mode="after")
    def _hosts_certificates(self) -> "Settings":
        if ((self.runner_redis_url or self.redis_url).startswith("rediss://")
                and not (self.broker_ca and self.broker_ca_key)):
            raise ValueError("hosts reach the broker over TLS (rediss://) but the lab has no "
                             "CA to issue their certificates: set LATLAB_BROKER_CA and "
                             "LATLAB_BROKER_CA_KEY")
        return self

    @property
    def broker_tls(self) -> dict[str, str] | None:
        return tls_options(self.broker_ca, self.broker_cert, self.broker_key)


@lru_cache
def get_settings() -> Settings:
    return Settings()
