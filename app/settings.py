"""Settings from the environment (prefix ``PENTA_``), one typed class that refuses unsafe values."""

from __future__ import annotations

import secrets
from functools import cached_property
from pathlib import Path

from pydantic import Field, field_validator, model_validator
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
        default=None, description="SQLAlchemy URL; default a SQLite file in the data directory"
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

    @property
    def resolved_database_url(self) -> str:
        """The database URL, defaulting to ``<data_dir>/penta.db``."""
        return self.database_url or f"sqlite:///{self.data_dir / 'penta.db'}"

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
