"""Settings from the environment (prefix ``PENTA_``), one typed class that refuses unsafe values."""

from __future__ import annotations

import secrets
from functools import cached_property
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

ROOT = Path(__file__).resolve().parent.parent
"""The project folder: templates/, static/ and migrations/ live here."""

_KEY_FILE_NAME = "secret_key"
_MIN_SECRET_LENGTH = 32


class Settings(BaseSettings):
    """Everything an operator can set, each as ``PENTA_<NAME>`` in the environment."""

    model_config = SettingsConfigDict(env_prefix="PENTA_", frozen=True)

    data_dir: Path = Field(default=Path("data"), description="Folder for the database, key, table")
    database_url: str | None = Field(
        default=None,
        description="SQLAlchemy URL; default a SQLite file in the data directory; for "
        "PostgreSQL postgresql+psycopg://user@host/database (then PENTA_SECRET_KEY is required)",
    )
    secret_key: str | None = Field(
        default=None,
        description="Signs CSRF tokens; default: generated once and kept in the data directory",
    )
    strategy_table: Path | None = Field(
        default=None,
        description="Cache file of the optimal strategy; default in the data directory",
    )
    secure_cookies: bool = Field(
        default=False,
        description="Mark cookies Secure even on plain HTTP (they are whenever the request "
        "came over HTTPS, as uvicorn sees it behind a trusted proxy)",
    )
    rate_limit_per_minute: int = Field(
        default=30,
        ge=0,
        description="Games one client address may create, and seats it may take, per minute "
        "(in bursts of as many); 0 turns the limits off",
    )
    max_body_bytes: int = Field(
        default=16 * 1024,
        ge=1024,
        description="Largest request body accepted; a larger one is refused with 413 unread",
    )
    dice_script: str | None = Field(
        default=None,
        description="TEST ONLY: comma-separated die values dealt in a cycle instead of random dice",
    )
    testing: bool = Field(
        default=False, description="Allows test-only settings such as dice_script"
    )
    auto_confirm_seconds: float = Field(
        default=3.0, gt=0, description="Seconds after the third roll before the computer's box"
    )
    auto_confirm_grace_seconds: float = Field(
        default=1.0,
        ge=0,
        description="Seconds past the auto-confirm deadline before the server records the "
        "computer's box: a choice still on the network in that time wins",
    )

    computer_pace_seconds: float = Field(
        default=1.0, ge=0, description="Seconds between a computer player's visible steps"
    )
    match_wait_seconds: float = Field(
        default=20,
        ge=0,
        le=600,
        description="How long a quick match waits for a fourth player: then a table starts "
        "with two or more",
    )
    computer_fast_pace_seconds: float = Field(
        default=0.25,
        ge=0,
        description="The same in a game whose host chose fast computer players",
    )
    public_url: str | None = Field(
        default=None,
        description="The site's public address (https://penta.example): every absolute link "
        "is built from it, and its host is allowed",
    )
    allowed_hosts: str = Field(
        default="localhost,127.0.0.1,::1",
        description="Comma-separated host names the server answers to (any port); a request "
        "with another Host header is refused with 400. '*' allows any (unsafe: links are "
        "then built from whatever Host a client sends)",
    )
    actions_per_minute: int = Field(
        default=600,
        ge=0,
        description="Requests that change something (every POST) one client address may make "
        "per minute, in bursts of as many; 0 turns the limit off",
    )
    seat_actions_per_minute: int = Field(
        default=300,
        ge=0,
        description="Actions one seat may take per minute, in bursts of as many; 0: off",
    )
    max_holds_per_turn: int = Field(
        default=40, ge=0, description="Hold changes one turn may log; 0: no cap"
    )
    max_header_bytes: int = Field(
        default=16 * 1024,
        ge=1024,
        description="Largest request head (request line and headers); beyond it 431 and the "
        "connection is closed, before more is read",
    )
    max_headers: int = Field(default=100, ge=10, description="Most header lines in a request")
    header_timeout_seconds: float = Field(
        default=10.0,
        gt=0,
        description="Time a connection has to send a whole request head, from when it opens "
        "or its previous answer ends; then it is closed",
    )
    max_connections: int = Field(
        default=1000, ge=0, description="Open connections in all (503 beyond; 0: no cap)"
    )
    max_connections_per_address: int = Field(
        default=64, ge=0, description="Open connections from one address (429 beyond; 0: no cap)"
    )
    max_streams: int = Field(
        default=500, ge=0, description="Live-update streams open in all (503 beyond; 0: no cap)"
    )
    max_streams_per_address: int = Field(
        default=16,
        ge=0,
        description="Live-update streams open from one address (429 beyond; 0: no cap)",
    )
    trusted_proxies: str = Field(
        default="",
        description="Comma-separated addresses or networks of reverse proxies whose "
        "X-Forwarded-For and X-Forwarded-Proto are believed; none by default",
    )
    abandon_after_days: float = Field(
        default=7,
        ge=0,
        description="Games waiting or being played with no change for this long while a "
        "server ran are closed as abandoned (0: never); downtime never counts",
    )
    delete_finished_after_days: float = Field(
        default=0,
        ge=0,
        description="Finished and abandoned games older than this are deleted with their log "
        "and review (0: kept for ever, for statistics and reviews)",
    )
    database_wait_seconds: float = Field(
        default=2.0,
        gt=0,
        description="How long a change waits for the database (off the event loop) before "
        "it is answered 503 busy",
    )
    absent_seconds: float = Field(
        default=60.0,
        gt=0,
        description="Seconds the player to move must have had no page of the game open, and "
        "made no move, before the others may hand the seat to the computer",
    )
    bus_url: str = Field(
        default="",
        description="Redis URL (redis://host:6379/0) of the bus that tells every worker's live "
        "streams of the changes made on the others, and holds the shared rate limits; empty: "
        "one process, in-process broker and limits",
    )
    bus_channel: str = Field(
        default="penta:changes",
        min_length=1,
        description="The Redis pub/sub channel of the bus (channels ignore the URL's database "
        "number: instances sharing one Redis need different channels)",
    )

    bus_check_seconds: float = Field(
        default=5.0,
        gt=0,
        description="With the Redis bus: how often each worker compares the games its streams "
        "watch with the database, so that a lost message delays an update by this at most "
        "(while Redis is down they poll every second)",
    )

    takeover_seconds: float = Field(
        default=0.25,
        gt=0,
        le=60,
        description="With several workers: how often one of them (each in turn, through "
        "Redis) looks for deadlines (a computer seat's step, a turn timer, the auto-confirm) "
        "more than this overdue, which the worker that was to play them has not (it died): a "
        "crash delays such a step by at most three times this.",
    )

    metrics_token: SecretStr | None = Field(
        default=None,
        description="Turns /metrics (Prometheus) on: answered only with Authorization: Bearer "
        "<this token> (16+ characters); unset: /metrics is 404",
        min_length=16,
    )
    log_format: Literal["text", "json"] = Field(
        default="text",
        description="text: readable lines; json: one JSON object a line, with a request id, "
        "game, seat, route, status and duration for each request (secrets redacted)",
    )

    @field_validator("bus_url")
    @classmethod
    def _redis_url(cls, value: str) -> str:
        if value and urlsplit(value).scheme not in ("redis", "rediss", "unix"):
            raise ValueError("PENTA_BUS_URL must be a redis://, rediss:// or unix:// URL")
        return value

    @field_validator("secret_key")
    @classmethod
    def _long_enough(cls, value: str | None) -> str | None:
        if value is not None and len(value) < _MIN_SECRET_LENGTH:
            raise ValueError(f"PENTA_SECRET_KEY needs at least {_MIN_SECRET_LENGTH} characters")
        return value

    @model_validator(mode="after")
    def _test_only(self) -> Settings:
        if self.dice_script is not None and not self.testing:
            raise ValueError("PENTA_DICE_SCRIPT is for tests only: it needs PENTA_TESTING=true")
        return self

    @model_validator(mode="after")
    def _shared_key(self) -> Settings:
        # A key generated into each worker's data folder would differ between workers (and
        # containers): a form signed by one would be refused by the next.
        if self.database_is_shared and not self.secret_key:
            raise ValueError(
                "PENTA_SECRET_KEY is required with a shared database (PENTA_DATABASE_URL "
                "names PostgreSQL): every worker must sign with the same key"
            )
        return self

    @field_validator("public_url")
    @classmethod
    def _absolute(cls, value: str | None) -> str | None:
        if value is None or value == "":
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("PENTA_PUBLIC_URL must be an absolute http(s) address")
        return value.rstrip("/")

    @property
    def host_names(self) -> frozenset[str]:
        """The host names a request may name in its Host header (lower case, no port)."""
        names = {name.strip().lower() for name in self.allowed_hosts.split(",") if name.strip()}
        if self.public_url:
            hostname = urlsplit(self.public_url).hostname
            if hostname:
                names.add(hostname.lower())
        return frozenset(names)

    @property
    def resolved_database_url(self) -> str:
        """The database URL, defaulting to ``<data_dir>/penta.db``."""
        return self.database_url or f"sqlite:///{self.data_dir / 'penta.db'}"

    @property
    def database_is_shared(self) -> bool:
        """Whether the database can be shared by several processes (PostgreSQL)."""
        url = self.database_url or ""
        return url.startswith(("postgresql:", "postgresql+", "postgres:"))

    @property
    def resolved_strategy_table(self) -> Path:
        """Where the strategy table is cached."""
        return self.strategy_table or self.data_dir / "strategy"

    @cached_property
    def resolved_secret_key(self) -> str:
        """The secret key: the configured one, else one generated once and kept on disk."""
        if self.secret_key:
            return self.secret_key
        self.data_dir.mkdir(parents=True, exist_ok=True)
        path = self.data_dir / _KEY_FILE_NAME
        if not path.exists():
            temporary = path.with_suffix(".tmp")
            temporary.write_text(secrets.token_urlsafe(48))
            temporary.chmod(0o600)
            temporary.replace(path)
        return path.read_text().strip()
