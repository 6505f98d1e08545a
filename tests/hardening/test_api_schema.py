"""Bad input, generated from the API's own schema: schemathesis against the ASGI app.

Every operation of ``/api/v1`` except the event stream gets Hypothesis-generated requests,
valid by the schema and not (negative mode), well over a thousand in all. A third of the
valid ones go to a real game, and another third to a real game with its seat's token, so
that they get past 404 and 403 into the rules.
Every answer must be no 5xx, of a documented status and content type, and match the
documented schema (an ``ErrorOut`` for every 4xx).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import APIOperation, Case, GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.python import asgi
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from app.settings import Settings
from app.web.factory import create_app
from tests.live_server import TEST_SECRET_KEY

pytestmark = pytest.mark.slow

EXAMPLES_PER_OPERATION_AND_MODE = 70
MINIMUM_CASES = 1000
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, strategy_table: Path) -> Iterator[FastAPI]:
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("schema"),
        strategy_table=strategy_table,
        secret_key=TEST_SECRET_KEY,
        rate_limit_per_minute=0,
        actions_per_minute=0,
        seat_actions_per_minute=0,
        allowed_hosts="testserver,localhost",  # the host schemathesis's ASGI client names
    )
    application = create_app(settings)
    yield application
    asgi.shutdown_lifespans()  # schemathesis started the app's lifespan: end it


class Seat:
    """A game being played and its seat's token; a new game once this one is over."""

    def __init__(self, app: FastAPI) -> None:
        self.service = app.state.service
        self.game_id = ""
        self.token = ""

    def current(self, *, rolled: bool = False) -> tuple[str, str]:
        """The game and token; with ``rolled``, dice on the table (a box can be scored)."""
        if not self.game_id or self.service.get(self.game_id).is_finished:
            view, self.token = self.service.create("Schemathesis")
            self.game_id = self.service.start(view.id, self.token).id
        if rolled and not self.service.get(self.game_id).state.turn.has_rolled:
            self.service.roll(self.game_id, self.token)
        return self.game_id, self.token


def test_generated_requests_get_documented_answers_and_never_a_5xx(app: FastAPI) -> None:
    schema = schemathesis.openapi.from_asgi("/openapi.json", app).exclude(path_regex=r"/events$")
    operations = [result.ok() for result in schema.get_all_operations()]
    labels = {operation.label for operation in operations}
    assert "POST /api/v1/games/{game_id}/roll" in labels
    assert not any(label.endswith("/events") for label in labels)
    seat = Seat(app)
    cases: list[tuple[str, int]] = []
    for operation in operations:
        _examples(operation, GenerationMode.POSITIVE, seat, cases)()
        try:
            _examples(operation, GenerationMode.NEGATIVE, seat, cases)()
        except Unsatisfiable:  # nothing it takes can be invalid (a path's free text only)
            assert not operation.body, operation.label
            assert not operation.query, operation.label
    assert len(cases) >= MINIMUM_CASES
    answered = {(label.split()[-1].rsplit("/", 1)[-1], status) for label, status in cases}
    assert {("roll", 200), ("score", 200), ("roll", 403), ("roll", 409), ("roll", 422)} <= answered
    print(f"{len(cases)} cases: {sorted(Counter(status for _, status in cases).items())}")


def _examples(
    operation: APIOperation, mode: GenerationMode, seat: Seat, cases: list[tuple[str, int]]
) -> Callable[[], None]:
    """A Hypothesis test of ``operation`` in ``mode`` that records each case it runs."""
    checks = CHECKS + ([negative_data_rejection] if mode.is_negative else [])

    @settings(
        max_examples=EXAMPLES_PER_OPERATION_AND_MODE,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(
        case=operation.as_strategy(generation_mode=mode),
        target=st.sampled_from(["generated", "real game", "real seat"]),
    )
    def run(case: Case, target: str) -> None:
        if mode.is_positive and target != "generated":
            # A score needs dice: without them every generated box would be refused (409).
            game_id, token = seat.current(rolled=operation.label.endswith("/score"))
            if "game_id" in (case.path_parameters or {}):
                case.path_parameters = {**case.path_parameters, "game_id": game_id}
            takes_token = any(parameter.name == "authorization" for parameter in operation.headers)
            if target == "real seat" and takes_token:
                case.headers = {**(case.headers or {}), "authorization": f"Bearer {token}"}
        response = case.call()
        case.validate_response(response, checks=checks)
        cases.append((operation.label, response.status_code))

    return run
