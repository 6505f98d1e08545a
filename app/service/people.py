"""Players without accounts: a browser's (or a bot's) identity across its games, its games and
totals, its profile as others see it, the leaderboard, and moving to another device.

A player is held by an unguessable secret (the browser's long-lived cookie, or a bot's player
token) whose hash is all the database keeps; others know it by its public id and its name.
Nothing else is asked or kept. The secret moves to another device through a one-time link
that dies when used (the old device's secret dies with it) or after :data:`LINK_LIFETIME`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from app.service import ratings
from app.service.clock import now
from app.service.errors import ForbiddenError, NotFoundError
from app.service.games import GameService
from app.service.seats import clean_name, hash_secret, new_game_id, new_secret
from app.service.views import GameView
from app.store.game_store import NoSuchGame
from app.store.people import People, Person, RatingChange, Seat, Totals

LINK_LIFETIME = timedelta(minutes=15)
LAST_GAMES = 20
"""Finished games listed on a profile and on my games."""
IN_PLAY = 20
"""Games in play listed on my games at most."""
LEADERS = 100


@dataclass(frozen=True)
class Playing:
    """A game of mine in play or waiting, and whether it waits for me."""

    seat: Seat
    my_turn: bool


@dataclass(frozen=True)
class Profile:
    """A player as a viewer may see them: a stranger sees their public games only."""

    person: Person
    rating: ratings.Shown
    totals: Totals
    finished: list[Seat]
    changes: list[RatingChange]


@dataclass(frozen=True)
class Mine:
    """My games: the ones in play (mine to move first), the finished ones, and my totals."""

    profile: Profile
    playing: list[Playing]


class Players:
    """Every use case of a player."""

    def __init__(self, people: People, games: GameService) -> None:
        self.people = people
        self.games = games

    def identify(self, secret: str | None, name: str | None = None) -> tuple[Person, str | None]:
        """The player holding ``secret`` (named ``name`` from now on, if given), or a new one
        if it holds none: the player, and the new secret to hand over (None: unchanged)."""
        if name is not None:
            name = clean_name(name)
        fresh = new_secret()
        person, created = self.people.identify(
            hash_secret(secret) if secret else None,
            name,
            now(),
            fresh=(new_game_id(), hash_secret(fresh)),
            rating=ratings.first_rating(),
        )
        return person, fresh if created else None

    def create(self, name: str) -> tuple[Person, str]:
        """A new player named ``name`` (a bot's), and its token."""
        person, fresh = self.identify(None, name)
        assert fresh is not None
        return person, fresh

    def find(self, secret: str | None) -> Person | None:
        """The player holding ``secret``, if any."""
        return self.people.find(hash_secret(secret)) if secret else None

    def me(self, secret: str | None) -> Person:
        person = self.find(secret)
        if person is None:
            raise ForbiddenError("no_player")
        return person

    def rename(self, secret: str | None, name: str) -> Person:
        name = clean_name(name)
        person = self.people.rename(hash_secret(secret), name) if secret else None
        if person is None:
            raise ForbiddenError("no_player")
        return person

    def open_link(self, secret: str | None) -> str:
        """A one-time link's token that moves this player to another device (any earlier
        one dies)."""
        token = new_secret()
        if not secret or not self.people.open_link(
            hash_secret(secret), hash_secret(token), now() + LINK_LIFETIME
        ):
            raise ForbiddenError("no_player")
        return token

    def linked(self, token: str) -> Person | None:
        """The player a live link moves, if it is alive (a look changes nothing)."""
        return self.people.linked(hash_secret(token), now())

    def take_link(self, token: str) -> tuple[Person, str]:
        """Move the player of a live link here: the player and its new secret. 403 for a
        link used or expired; the device it came from holds nothing then."""
        fresh = new_secret()
        person = self.people.take_link(hash_secret(token), hash_secret(fresh), now())
        if person is None:
            raise ForbiddenError("link_dead")
        return person, fresh

    def profile(self, person_id: str, viewer: str | None) -> Profile:
        """A player's profile as the holder of ``viewer`` (a player's secret, or None) sees
        it: the public games, and the private ones the viewer sat in too; the totals of the
        public ones (of all, for the player themself). 404 for no such player."""
        person = self.people.get(person_id)
        if person is None:
            raise NotFoundError("not_found", "no_such_player")
        looker = self.find(viewer)
        if looker is not None and looker.id == person.id:
            return self._profile(person, visible_to=True)
        return self._profile(person, visible_to=looker.id if looker else None)

    def mine(self, secret: str | None) -> Mine:
        """My games, for the player holding ``secret``: 403 for none."""
        person = self.me(secret)
        playing: list[Playing] = []
        for seat in self.people.seats(person.id, finished=False, limit=IN_PLAY):
            try:
                view = self.games.get(seat.game_id)
            except (NoSuchGame, NotFoundError):
                continue
            playing.append(Playing(seat, _my_turn(view, seat.seat)))
        playing.sort(key=lambda game: not game.my_turn)  # stable: newest first within
        return Mine(self._profile(person, visible_to=True), playing)

    def leaderboard(self) -> list[tuple[Person, ratings.Shown]]:
        leaders = self.people.leaderboard(ratings.SETTLED, LEADERS)
        return [
            (person, ratings.Shown.of(person.mu, person.sigma, person.rated_games))
            for person in leaders
        ]

    def _profile(self, person: Person, *, visible_to: str | bool | None) -> Profile:
        return Profile(
            person=person,
            rating=ratings.Shown.of(person.mu, person.sigma, person.rated_games),
            totals=self.people.totals(person.id, public_only=visible_to is not True),
            finished=self.people.seats(
                person.id, finished=True, limit=LAST_GAMES, visible_to=visible_to
            ),
            changes=self.people.ratings(person.id, LAST_GAMES),
        )


def _my_turn(view: GameView, seat: int) -> bool:
    return view.turn == seat
