"""The cycle collector is kept out of the moves (app/web/factory.py, ``collect_less``): what
start-up made is set aside, and the youngest generation waits for many objects."""

from __future__ import annotations

import gc

from fastapi.testclient import TestClient

from app.web.factory import YOUNG_OBJECTS


def test_once_started_the_app_leaves_its_start_up_objects_out_of_every_collection(
    client: TestClient,
) -> None:
    assert client.get("/healthz").status_code == 200
    assert gc.get_freeze_count() > 10_000  # the modules, templates, settings...
    assert gc.get_threshold()[0] == YOUNG_OBJECTS
    assert gc.isenabled()
