"""What ships for the operators' monitoring holds up: the alert rules pass ``promtool``'s
check and their own unit tests, the dashboard is valid, a real Prometheus with the shipped
scrape settings scrapes a worker and answers every query of the dashboard and the alerts,
and compose.monitoring.yaml wires them to every worker of the cluster. Debian's
``prometheus`` package gives ``prometheus`` and ``promtool``; without them those tests are
skipped, saying so."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
import yaml

from bench.servers import free_port
from tests.live_server import Server
from tests.operator.test_metrics import TOKEN, wait_for
from tests.redis_server import REDIS_SERVER, RedisServer

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
ALERTS = DEPLOY / "prometheus" / "alerts.yml"
DASHBOARD = DEPLOY / "grafana" / "penta.json"
PROMTOOL = shutil.which("promtool")
PROMETHEUS = shutil.which("prometheus")
needs_promtool = pytest.mark.skipif(
    PROMTOOL is None, reason="promtool is not installed (Debian: apt-get install prometheus)"
)
pytestmark = pytest.mark.single_kind


def dashboard() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DASHBOARD.read_text())
    return loaded


def dashboard_queries() -> list[str]:
    """Every panel's expressions, as Grafana sends them (its rate interval made 1m)."""
    return [
        target["expr"].replace("$__rate_interval", "1m")
        for panel in dashboard()["panels"]
        for target in panel["targets"]
    ]


def alert_queries() -> list[str]:
    rules = yaml.safe_load(ALERTS.read_text())
    return [rule["expr"] for group in rules["groups"] for rule in group["rules"]]


@needs_promtool
def test_the_alert_rules_check_and_pass_their_unit_tests() -> None:
    assert PROMTOOL is not None
    for command in (["check", "rules", "alerts.yml"], ["test", "rules", "alerts.test.yml"]):
        done = subprocess.run(
            [PROMTOOL, *command], cwd=ALERTS.parent, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert "SUCCESS" in done.stdout


def test_the_dashboard_is_a_valid_grafana_dashboard() -> None:
    schema = json.loads((Path(__file__).parent / "grafana-dashboard.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(dashboard(), schema, cls=jsonschema.Draft202012Validator)
    panels = dashboard()["panels"]
    assert len({panel["id"] for panel in panels}) == len(panels)
    cells = set()  # no two panels overlap on the grid
    for panel in panels:
        grid = panel["gridPos"]
        assert grid["x"] + grid["w"] <= 24
        here = {
            (x, y)
            for x in range(grid["x"], grid["x"] + grid["w"])
            for y in range(grid["y"], grid["y"] + grid["h"])
        }
        assert not cells & here, panel["title"]
        cells |= here
    titles = " ".join(panel["title"].lower() for panel in panels)
    for shown in ("moves", "p99", "games", "streams", "database", "deadline", "limit", "bus"):
        assert shown in titles, shown


@pytest.fixture
def prometheus(tmp_path: Path, start_server: Callable[..., Server]) -> Iterator[tuple[str, Server]]:
    """A Prometheus with the shipped scrape settings and alerts, scraping one worker every
    second (on a Redis bus, so that the bus's figures are there too)."""
    if PROMETHEUS is None or PROMTOOL is None:
        pytest.skip("prometheus is not installed (Debian: apt-get install prometheus)")
    if REDIS_SERVER is None:
        pytest.skip("redis-server is not installed")
    redis = RedisServer(tmp_path)
    server = start_server(PENTA_METRICS_TOKEN=TOKEN, PENTA_BUS_URL=redis.url)
    folder = tmp_path / "prometheus"
    folder.mkdir()
    (folder / "token").write_text(TOKEN)
    config = yaml.safe_load((DEPLOY / "prometheus" / "prometheus.yml").read_text())
    config["global"].update(scrape_interval="1s", evaluation_interval="1s")
    (job,) = config["scrape_configs"]
    job["authorization"]["credentials_file"] = str(folder / "token")
    job["static_configs"] = [{"targets": [server.url.removeprefix("http://")]}]
    shutil.copy(ALERTS, folder / "alerts.yml")
    (folder / "prometheus.yml").write_text(yaml.safe_dump(config))
    checked = subprocess.run(
        [PROMTOOL, "check", "config", str(folder / "prometheus.yml")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    address = f"127.0.0.1:{free_port()}"
    log = (folder / "log").open("w")
    process = subprocess.Popen(
        [
            PROMETHEUS,
            f"--config.file={folder / 'prometheus.yml'}",
            f"--storage.tsdb.path={folder / 'data'}",
            f"--web.listen-address={address}",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        # Until its storage is open Prometheus answers 503 "Service Unavailable" to queries.
        wait_for(lambda: httpx.get(f"http://{address}/-/ready").status_code == 200, 30.0)
        yield f"http://{address}", server
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()
        redis.stop()


def query(prometheus: str, expression: str) -> list[dict[str, Any]]:
    answer = httpx.get(f"{prometheus}/api/v1/query", params={"query": expression}, timeout=5)
    body = answer.json()
    assert body["status"] == "success", (expression, body)
    result: list[dict[str, Any]] = body["data"]["result"]
    return result


def test_prometheus_scrapes_a_worker_and_answers_the_dashboard(
    prometheus: tuple[str, Server],
) -> None:
    url, server = prometheus
    with httpx.Client(base_url=f"{server.url}/api/v1") as client:
        seat = client.post("/games", json={"name": "Ann"}).json()
        game_id, token = seat["game"]["id"], seat["token"]
        headers = {"Authorization": f"Bearer {token}"}
        client.post(f"/games/{game_id}/start", headers=headers, json={})
        client.post(f"/games/{game_id}/roll", headers=headers, json={"hold": []})

    def scraped() -> bool:
        found = query(url, 'penta_actions_total{job="penta",kind="roll",outcome="ok"}')
        return bool(found) and found[0]["value"][1] == "1"

    wait_for(scraped, 30.0)
    assert query(url, 'up{job="penta"}')[0]["value"][1] == "1"
    assert query(url, "penta_bus_up")[0]["value"][1] == "1"
    assert query(url, 'penta_games{status="playing"}')[0]["value"][1] == "1"
    # Every name the dashboard and the alerts read is one the worker exposes.
    names = {series["metric"]["__name__"] for series in query(url, '{job="penta"}')}
    read = {
        name
        for expression in dashboard_queries() + alert_queries()
        for name in re.findall(r"\b((?:penta|process)_[a-z_]+|up)\b", expression)
    }
    assert read <= names, read - names
    for expression in dashboard_queries() + alert_queries():
        query(url, expression)  # each one is valid PromQL over these series

    def rules_evaluated() -> bool:
        groups = httpx.get(f"{url}/api/v1/rules").json()["data"]["groups"]
        rules = [rule for group in groups for rule in group["rules"]]
        return len(rules) == len(alert_queries()) and all(rule["health"] == "ok" for rule in rules)

    wait_for(rules_evaluated, 30.0)


def test_compose_monitoring_watches_every_worker() -> None:
    cluster = yaml.safe_load((ROOT / "compose.cluster.yaml").read_text())["services"]
    monitoring = yaml.safe_load((ROOT / "compose.monitoring.yaml").read_text())
    services = monitoring["services"]
    workers = sorted(name for name in cluster if name.startswith("app"))
    for worker in workers:
        token = services[worker]["environment"]["PENTA_METRICS_TOKEN"]
        assert token.startswith("${PENTA_METRICS_TOKEN:?")
    config = yaml.safe_load((DEPLOY / "prometheus" / "prometheus.yml").read_text())
    (job,) = config["scrape_configs"]
    assert job["static_configs"] == [{"targets": [f"{worker}:8000" for worker in workers]}]
    secret = job["authorization"]["credentials_file"]
    assert secret == "/run/secrets/penta_metrics_token"
    assert services["prometheus"]["secrets"] == ["penta_metrics_token"]
    assert monitoring["secrets"]["penta_metrics_token"] == {"environment": "PENTA_METRICS_TOKEN"}
    mounts = {
        volume.split(":")[0]: volume.split(":")[1] for volume in services["grafana"]["volumes"]
    }
    assert mounts["./deploy/grafana/penta.json"] == "/var/lib/grafana/dashboards/penta.json"
    provisioning = DEPLOY / "grafana" / "provisioning"
    assert mounts["./deploy/grafana/provisioning"] == "/etc/grafana/provisioning"
    source = yaml.safe_load((provisioning / "datasources" / "penta.yml").read_text())
    assert source["datasources"][0]["url"] == "http://prometheus:9090"
    provider = yaml.safe_load((provisioning / "dashboards" / "penta.yml").read_text())
    assert provider["providers"][0]["options"]["path"] == "/var/lib/grafana/dashboards"
    prometheus_mounts = services["prometheus"]["volumes"]
    assert "./deploy/prometheus/alerts.yml:/etc/prometheus/alerts.yml:ro" in prometheus_mounts
    for published in (services["grafana"]["ports"], services["prometheus"]["ports"]):
        assert all("127.0.0.1" in port for port in published), "local unless told otherwise"
