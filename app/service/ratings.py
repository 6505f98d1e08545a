"""Ratings: what a finished public game between people does to their ratings, and the Pentas
each seat scored, both written in the transaction of the game's last move (so once).

The model is OpenSkill's Plackett-Luce (a free-for-all of any size, ties shared): every
player starts at mu 25, sigma 25/3. Only people are rated, ranked among themselves by their
totals: a computer's seat moves nobody's rating and has none. A game with fewer than two
people, or a friends' game (not public), rates nobody.

A rating is shown on a scale of :data:`SCALE` (a new player is 1500), with its uncertainty
(two sigmas) until the player has :data:`SETTLED` rated games; the leaderboard lists those.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from openskill.models import PlackettLuce

from app.rules import Game
from app.store.game_store import Writing
from app.store.people import Rated
from app.store.snapshots import Snapshot

MODEL = PlackettLuce()
SCALE = 60
"""Shown ratings are ``mu`` times this."""
SETTLED = 5
"""Rated games after which a rating is shown without its uncertainty, and listed."""


def first_rating() -> tuple[float, float]:
    """A new player's (mu, sigma)."""
    return MODEL.mu, MODEL.sigma


@dataclass(frozen=True)
class Shown:
    """A rating as a player reads it."""

    value: int
    plus_minus: int | None
    """Two sigmas on the same scale, while the rating is provisional; None once settled."""

    @classmethod
    def of(cls, mu: float, sigma: float, games: int) -> Shown:
        return cls(round(mu * SCALE), None if games >= SETTLED else round(2 * sigma * SCALE))


def pentas(state: Game) -> dict[int, int]:
    """The Pentas each seat scored for points: the 50 in the Penta box, and one a bonus."""
    return {
        seat: int(sheet.has_penta_fifty) + sheet.penta_bonus // 100
        for seat, sheet in enumerate(state.sheets)
    }


def settle(writing: Writing, snapshot: Snapshot, moment: datetime) -> Snapshot:
    """At the end of the game: each seat's Pentas, and the people's ratings if it is rated."""
    snapshot = writing.set_pentas(snapshot, pentas(snapshot.state))
    record = snapshot.record
    people = [
        (player.person_id, player.final_total)
        for player in record.players
        if not player.computer and player.person_id is not None
    ]
    ids = [person_id for person_id, _total in people]
    if not record.public or len(people) < 2 or len(set(ids)) != len(ids):
        return snapshot
    before = writing.ratings_of(ids)
    if len(before) != len(ids):  # a player since deleted: the game is not rated
        return snapshot
    totals = [total or 0 for _person, total in people]
    ranks = [1 + sum(other > total for other in totals) for total in totals]
    teams = [[MODEL.rating(mu=before[i][0], sigma=before[i][1])] for i in ids]
    after = MODEL.rate(teams, ranks=[float(rank) for rank in ranks])
    writing.rate(
        record.id,
        [
            Rated(person_id, rank, before[person_id], (team[0].mu, team[0].sigma))
            for person_id, rank, team in zip(ids, ranks, after, strict=True)
        ],
        moment,
    )
    return snapshot
