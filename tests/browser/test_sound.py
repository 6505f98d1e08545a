"""The optional dice sound (issue 15, item 2): off by default, a toggle remembered by the
browser, and with it on a roll plays a sound made by the Web Audio API; with it off, none."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.test_phone_board import PHONE, settled
from tests.live_server import Server

pytestmark = pytest.mark.browser

COUNT_THE_SOUNDS = """(() => {
    const Original = window.AudioContext;
    window.audioSeen = {contexts: 0, sounds: 0};
    window.AudioContext = class extends Original {
        constructor(...options) { super(...options); window.audioSeen.contexts += 1; }
    };
    for (const Source of [AudioBufferSourceNode, OscillatorNode]) {
        const start = Source.prototype.start;
        Source.prototype.start = function (...when) {
            window.audioSeen.sounds += 1;
            return start.apply(this, when);
        };
    }
})();"""
"""Wraps the browser's Web Audio API before the page's scripts run: the test sees every context
made and every sound started, the page sees nothing new."""


def audio(page: Any) -> dict[str, int]:
    seen: dict[str, int] = page.evaluate("window.audioSeen")
    return seen


def roll(page: Any, left_before: int) -> None:
    """Roll and wait until the new dice have landed (board.js tumbles them)."""
    settled(page)
    before = page.locator("#dice-tray").get_attribute("data-roll")
    page.get_by_role("button", name=f"Roll ({left_before} left)").click()
    page.wait_for_function(
        """before => {
            const tray = document.getElementById('dice-tray');
            return tray.dataset.roll !== before && tray.querySelector('button.die.tumble');
        }""",
        arg=before,
    )


def test_the_roll_sound_is_off_until_turned_on_and_remembered(browser: Any, server: Server) -> None:
    context = browser.new_context(viewport=PHONE)
    context.add_init_script(COUNT_THE_SOUNDS)
    page = context.new_page()
    page.goto(server.url)
    page.get_by_label("Your name").fill("Ann")
    page.get_by_role("button", name="New game").click()
    page.wait_for_url(re.compile(r"/games/[\w-]+$"))
    toggle = page.get_by_role("button", name="Dice sound")
    assert toggle.get_attribute("aria-pressed") == "false", "muted by default"
    assert page.evaluate("document.documentElement.dataset.sound") == "off"

    roll(page, 3)
    assert audio(page) == {"contexts": 0, "sounds": 0}, "no sound, no audio at all while off"

    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true"
    page.reload()
    toggle = page.get_by_role("button", name="Dice sound")
    assert toggle.get_attribute("aria-pressed") == "true", "remembered across a reload"
    assert page.evaluate("document.documentElement.dataset.sound") == "on"
    assert audio(page) == {"contexts": 0, "sounds": 0}, "nothing plays before a gesture"

    roll(page, 2)
    page.wait_for_function("() => window.audioSeen.sounds > 0")
    played = audio(page)
    assert played["contexts"] == 1

    toggle.click()  # off again: the next roll is silent
    assert toggle.get_attribute("aria-pressed") == "false"
    roll(page, 1)
    assert audio(page) == played
