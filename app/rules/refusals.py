"""Every refusal of the game by its stable code: the English template of each, a Babel message.

A refusal is a code plus parameters (``RulesError("box_used", box=Box.CHANCE)``); its text is
rendered from this one table, in English here for the API and the logs, in the reader's
language by :func:`app.i18n.explain`. The table lives in the rules, the innermost layer, so that
the rules may raise with it and stay free of Babel; it holds the service's and the web layer's
refusals too, so that there is one table. Placeholders are named (``%(box)s``): Babel checks
them in every catalog, and ``tests/i18n`` checks that each language has the same ones.

>>> english("box_used", {"box": "chance"})
'the box chance is already used'
>>> english("full", {"num": 6})
'a game has at most 6 players'
>>> english("no_such_box", {"box": "nope"})
"there is no box 'nope'"
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeGuard

from app.rules.boxes import Box


def N_(message: str) -> str:
    """Mark ``message`` for extraction (``make extract``); it is translated where it is shown."""
    return message


@dataclass(frozen=True)
class Plural:
    """A message whose wording follows a count (the parameter ``num``)."""

    singular: str
    plural: str

    def choose(self, count: int) -> str:
        """The English form for ``count``."""
        return self.singular if count == 1 else self.plural


def N_plural(singular: str, plural: str) -> Plural:
    """Mark a singular and plural message for extraction; the count is the parameter ``num``."""
    return Plural(singular, plural)


Message = str | Plural
COUNT = "num"
"""The parameter that chooses the form of a :class:`Plural`."""

MESSAGES: dict[str, Message] = {
    # The rules: a malformed action (never well formed) ...
    "die_face": N_("a die shows 1 to 6, not %(value)r"),
    "roll_not_dice": N_("a roll is 5 dice, not %(values)r"),
    "roll_dice_count": N_("a roll has 5 dice, not %(count)d"),
    "hold_flags": N_("holds are 5 true/false flags"),
    "die_numbers": N_("dice are numbered 0 to 4"),
    "held_twice": N_("a die is held at most once"),
    "no_such_box": N_("there is no box %(box)r"),
    "player_count": N_("a game has 1 to %(most)d players, not %(players)r"),
    "not_an_action": N_("not an action: %(action)r"),
    # ... or an illegal one (well formed, not allowed now).
    "finished": N_("the game is over"),
    "no_rolls_left": N_("no rolls left: choose a box"),
    "die_held": N_("die %(number)d is held and cannot change"),
    "roll_before_hold": N_("roll before holding dice"),
    "roll_before_score": N_("roll before choosing a box"),
    "box_used": N_("the box %(box)s is already used"),
    "joker_forbids": N_("the joker forbids %(box)s for this Penta; allowed: %(allowed)s"),
    "sheet_full_box": N_("the sheet is full: there is no box to choose"),
    "sheet_full_turn": N_("the sheet is full: there is no turn to play"),
    # The service: games, seats and the lobby.
    "not_found": N_("there is no such game"),
    "name_needed": N_("a name is needed"),
    "name_control": N_("a name cannot hold control or invisible characters"),
    "name_invisible": N_("a name needs at least one letter, digit or symbol that can be seen"),
    "name_taken": N_("another player in this game already has that name"),
    "name_too_long": N_plural(
        "a name has at most %(num)d character", "a name has at most %(num)d characters"
    ),
    "invalid_timer": N_("the turn timer is off, 30, 60 or 120 seconds"),
    "invalid_pace": N_("the computer players move at the normal pace or fast"),
    "not_waiting": N_("you are not waiting for a quick match"),
    "queue_full": N_("too many players are waiting for a quick match: try again in a minute"),
    "already_seated": N_("you have a seat in this game already"),
    "no_player": N_("this browser has not played yet: there is no player to show"),
    "no_such_player": N_("there is no such player"),
    "link_dead": N_("this link has been used or has expired: make a new one"),
    "invalid_client_seed": N_("a client seed is 1 to 64 printable ASCII characters"),
    "not_host": N_("only the host can do that"),
    "not_your_seat": N_("you do not hold a seat in this game"),
    "not_your_turn": N_("it is not your turn"),
    "already_started": N_("the game has already started"),
    "join_started": N_("cannot join a game that has started"),
    "add_to_started": N_("cannot add a player to a game that has started"),
    "remove_started": N_("players can be removed only before the game starts"),
    "remove_host": N_("the host's own seat cannot be removed"),
    "full": N_plural("a game has at most %(num)d player", "a game has at most %(num)d players"),
    "not_started": N_("the game has not started yet"),
    "abandoned": N_("this game was closed after a long pause"),
    "seeds_fixed": N_("the seeds are fixed once the game has started"),
    "stale": N_("the game has moved on since you saw it: here it is now"),
    "too_late": N_("time ran out: the computer recorded your roll"),
    "auto_too_early": N_("the computer chooses only after the third roll"),
    "too_many_holds": N_("too many hold changes this turn: roll or choose a box"),
    "advice_not_yours": N_("advice is for the player to move"),
    "review_not_finished": N_("the review comes once the game is over"),
    "not_ready": N_("the computer is still getting ready: try again in a few seconds"),
    "rematch_not_finished": N_("a rematch follows a finished game"),
    "no_rematch": N_("nobody has offered a rematch"),
    "rematch_joined": N_("you are in the rematch already"),
    "invalid_seat": N_("there is no such seat"),
    "own_seat": N_("you cannot hand your own seat to the computer"),
    "computer_seat": N_("the computer already plays that seat"),
    "not_to_move": N_("only the seat of the player to move can be handed over"),
    "present": N_("that player has the game open"),
    "not_away_long": N_("that player has not been away long enough"),
    "presence_unknown": N_(
        "who has the game open cannot be told just now: try again in a few seconds"
    ),
    "invalid_reaction": N_("there is no such reaction"),
    "too_many_reactions": N_("too many reactions: wait a moment"),
    # The web layer: forms, limits, the server's own state and the framework's refusals.
    "csrf": N_("cross-site requests are refused"),
    "form_expired": N_("this form has expired: reload the page and try again"),
    "rate_limited": N_("too many requests from your address: try again in %(seconds)d s"),
    "seat_limited": N_("too many actions from your seat: try again in %(seconds)d s"),
    "too_many_streams": N_("too many live updates are open from your address"),
    "server_full": N_("the server has too many live updates open: try again later"),
    "busy": N_("the server is busy: try again in a moment"),
    "storage": N_("the server cannot save changes right now: try again later"),
    "too_large": N_("the request is too large: at most %(bytes)d bytes"),
    "page_not_found": N_("Not Found"),
    "method_not_allowed": N_("Method Not Allowed"),
    "invalid": N_("some of the fields sent are not valid"),
    "malformed": N_("the request could not be read"),
}
"""The English template of every refusal, by code."""


def english(code: str, params: Mapping[str, object]) -> str:
    """The refusal ``code`` in English with ``params`` as they are (a box by its key)."""
    return template_for(code, params) % {name: plain(value) for name, value in params.items()}


def template_for(code: str, params: Mapping[str, object]) -> str:
    """The English template of ``code``, in the form its count asks for if it has one."""
    message = MESSAGES[code]
    if isinstance(message, Plural):
        count = params[COUNT]
        assert isinstance(count, int)
        return message.choose(count)
    return message


def plain(value: object) -> object:
    """A parameter as English shows it: boxes by their keys, several joined with commas."""
    if is_boxes(value):
        return ", ".join(value)
    return value


def is_boxes(value: object) -> TypeGuard[tuple[Box, ...]]:
    """Whether ``value`` is a list of boxes (a parameter such as the boxes a joker allows)."""
    return isinstance(value, tuple) and bool(value) and all(isinstance(v, Box) for v in value)
