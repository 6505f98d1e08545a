"""compose.cluster.yaml and its nginx configuration keep the README's promises for several
workers: PostgreSQL and Redis shared by three workers that nothing but the proxy reaches,
one secret key for all, and live streams that the proxy neither buffers nor cuts short."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import uvicorn
import yaml

from app.settings import Settings
from app.web.routes.events import KEEP_ALIVE_SECONDS

ROOT = Path(__file__).resolve().parent.parent
WORKERS = ("app1", "app2", "app3")


def _compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "compose.cluster.yaml").read_text())
    return loaded


def _nginx() -> str:
    text = (ROOT / "deploy" / "nginx.conf").read_text()
    return re.sub(r"#[^\n]*", "", text)  # the directives, without the comments


def _block(config: str, opening: str) -> str:
    """The body of the ``{ … }`` block that ``opening`` starts (no nested blocks inside)."""
    start = config.index(opening)
    body = config[config.index("{", start) + 1 :]
    return body[: body.index("}")]


def _directives(block: str) -> list[list[str]]:
    return [statement.split() for statement in block.split(";") if statement.strip()]


def test_three_workers_share_postgres_redis_and_one_secret_key() -> None:
    services = _compose()["services"]
    assert set(services) == {"postgres", "redis", *WORKERS, "proxy"}
    environments = [services[worker]["environment"] for worker in WORKERS]
    assert environments[0] == environments[1] == environments[2]
    environment = environments[0]
    assert environment["PENTA_DATABASE_URL"].startswith("postgresql+psycopg://penta:")
    assert environment["PENTA_DATABASE_URL"].endswith("@postgres:5432/penta")
    assert environment["PENTA_BUS_URL"] == "redis://redis:6379/0"
    # Required, never generated per container: a token signed by one worker is checked by all.
    assert environment["PENTA_SECRET_KEY"].startswith("${PENTA_SECRET_KEY:?")
    for name in environment:
        assert name.lower().removeprefix("penta_") in Settings.model_fields, name
    for worker in WORKERS:
        assert "ports" not in services[worker], "only the proxy may reach a worker"
        assert services[worker]["depends_on"] == {
            "postgres": {"condition": "service_healthy"},
            "redis": {"condition": "service_healthy"},
        }
        assert services[worker]["build"] == "."
    assert services["postgres"]["image"].startswith("postgres:15")
    assert services["postgres"]["environment"]["POSTGRES_PASSWORD"].startswith(
        "${PENTA_POSTGRES_PASSWORD:?"
    )
    assert services["redis"]["image"].startswith("redis:7")


def test_the_proxy_listens_on_loopback_unless_told_otherwise_with_its_config_mounted() -> None:
    proxy = _compose()["services"]["proxy"]
    assert proxy["ports"] == ["${PENTA_LISTEN:-127.0.0.1:8000}:80"]
    assert proxy["volumes"] == ["./deploy/nginx.conf:/etc/nginx/conf.d/default.conf:ro"]
    assert set(proxy["depends_on"]) == set(WORKERS)


def test_nginx_sends_each_game_to_one_worker_by_its_id_and_the_rest_round_them() -> None:
    config = _nginx()
    upstream = _directives(_block(config, "upstream penta"))
    assert ["hash", "$penta_game"] in upstream  # not consistent: an empty key goes round
    games = _directives(_block(config, "map $uri $penta_game"))
    assert games == [
        ["~^(?:/api/v1)?/games/(?<game>[^/]+)", "$game"],
        ["default", '""'],
    ]
    pattern = re.compile(games[0][0].removeprefix("~").replace("?<game>", "?P<game>"))
    for path in ("/games/g-1_x", "/games/g-1_x/roll", "/api/v1/games/g-1_x/events"):
        match = pattern.match(path)
        assert match is not None, path
        assert match["game"] == "g-1_x", path
    for path in ("/", "/games", "/api/v1/games", "/rules"):
        assert pattern.match(path) is None, path
    servers = [directive[1] for directive in upstream if directive[0] == "server"]
    assert servers == [f"{worker}:8000" for worker in WORKERS]


def test_nginx_lets_go_of_idle_worker_connections_before_the_workers_close_them() -> None:
    """A request nginx sends on a kept connection just as uvicorn closes it fails (502)."""
    upstream = _directives(_block(_nginx(), "upstream penta"))
    (timeout,) = [directive[1] for directive in upstream if directive[0] == "keepalive_timeout"]
    assert timeout.endswith("s")
    assert float(timeout[:-1]) < uvicorn.Config("app.main:app").timeout_keep_alive


def test_nginx_streams_live_updates_unbuffered_and_holds_them_open() -> None:
    config = _nginx()
    opening = re.search(r"location ~ (\S+) \{", config)
    assert opening is not None
    route = re.compile(opening.group(1))
    for path in ("/games/Xb3k/events", "/api/v1/games/Xb3k/events"):
        assert route.match(path), path
    for path in ("/games/Xb3k", "/api/v1/games/Xb3k/roll", "/games/Xb3k/events/x"):
        assert not route.match(path), path
    directives = _directives(_block(config, "location ~"))
    stream = {directive[0]: directive[1:] for directive in directives}
    assert stream["proxy_pass"] == ["http://penta"]
    assert stream["proxy_buffering"] == ["off"]
    timeout = stream["proxy_read_timeout"][0]
    assert timeout.endswith("h")
    assert int(timeout[:-1]) * 3600 > 10 * KEEP_ALIVE_SECONDS
    server = _directives(_block(config, "server {").split("location")[0])
    assert ["proxy_http_version", "1.1"] in server  # keep-alive to the workers, and streaming
    assert ["proxy_set_header", "X-Forwarded-For", "$proxy_add_x_forwarded_for"] in server


def test_the_readme_documents_every_setting_of_the_cluster() -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Running several workers")[1].split("\n## ")[0]
    environment = _compose()["services"]["app1"]["environment"]
    for name in [*environment, "PENTA_BUS_CHANNEL", "PENTA_BUS_CHECK_SECONDS"]:
        assert f"`{name}`" in section, name
    assert "compose.cluster.yaml" in section
    for name in ("PENTA_BUS_URL", "PENTA_BUS_CHANNEL", "PENTA_BUS_CHECK_SECONDS"):
        assert f"| `{name}` |" in readme, f"{name} is missing from the Settings table"
