"""Fixtures of the hardening tests: real servers, HTML sessions with their CSRF token."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import httpx

from tests.live_server import Server

HTMX = {"HX-Request": "true"}
T = TypeVar("T")


def run_async(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` to its end on a new event loop in a thread of its own (the
    Playwright tests leave a loop running in the main thread for the rest of the session)."""
    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(asyncio.run, coroutine).result()


def csrf_token(client: httpx.Client) -> str:
    """The CSRF token the home page embeds for this client's browser cookie."""
    page = client.get("/")
    match = re.search(r'name="csrf_token" value="([0-9a-f]{64})"', page.text)
    assert match, "the home page carries a CSRF token"
    return match.group(1)


def log_length(server: Server, game_id: str) -> int:
    """How many actions the game's log holds, read from the server's database."""
    ((count,),) = server.query("SELECT count(*) FROM actions WHERE game_id = :game", game=game_id)
    return int(count)
