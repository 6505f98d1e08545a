"""The JSON shapes of the bot API."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from app.analysis.review import Decision
from app.fairness import CLIENT_SEED_PATTERN
from app.rules import BOXES, Box
from app.service.fairness import Fairness, LoggedRoll
from app.service.views import GameView, PlayerView

Status = Literal["waiting", "playing", "finished", "abandoned"]


class PlayerOut(BaseModel):
    seat: int
    name: str
    computer: bool
    stand_in: bool = Field(
        default=False, description="The computer plays this seat until its player is back"
    )
    player_id: str | None = Field(
        default=None, description="The seat's player (their profile: /players/{id}), if known"
    )
    boxes: dict[Box, int | None] = Field(description="All 13 boxes: points, or null when free")
    upper_subtotal: int
    upper_bonus: int
    penta_bonus: int
    total: int


class ClientSeedOut(BaseModel):
    seat: int
    client_seed: str | None = Field(description="Null until given (the host's: at the start)")


class FairnessOut(BaseModel):
    """The verifiable dice: see docs/fairness.md for the scheme and a verifier."""

    commitment: str | None = Field(
        description="SHA-256 (hex) of the server seed, published before any roll"
    )
    client_seeds: list[ClientSeedOut] = Field(description="The human seats', in seat order")
    server_seed: str | None = Field(
        description="The server seed (hex), revealed once the game is over; null before"
    )
    verifiable: bool = Field(description="False for games from before the verifiable dice")
    scheme: int = Field(
        description="How the seeds make each roll's message (docs/fairness.md): 2 for games "
        "created since it, 1 before"
    )

    @classmethod
    def of(cls, fairness: Fairness) -> FairnessOut:
        """Made without validation, as :meth:`GameOut.of` (and kept: see there)."""
        return _fairness_out(fairness)


class GameOut(BaseModel):
    id: str
    url: str = Field(description="The game page, which is also its share link")
    status: Status
    version: int = Field(description="Grows with every change; the id of live events")
    round: int
    turn: int | None = Field(description="The seat to move, null unless playing")
    rolls_left: int
    dice: list[int] | None = Field(description="Five values, null before the first roll")
    held: list[bool]
    options: dict[Box, int] = Field(description="Legal boxes for the dice: points, no bonus")
    bonus: int = Field(description="The Penta bonus that scoring now earns: 0 or 100")
    must_sacrifice: bool
    deadline: datetime | None = Field(
        description="After the third roll: choose a box by this moment (UTC), else the "
        "server records the computer's box (after a short grace for the network)"
    )
    players: list[PlayerOut]
    winners: list[int] = Field(description="Seats sharing the highest total, once finished")
    closed_reason: Literal["idle", "restored"] | None = Field(
        default=None,
        description="Why an abandoned game was closed: `idle` (a long pause) or `restored` "
        "(the server was restored from a backup while it was played: its dice could have "
        "repeated rolls already seen); null otherwise",
    )
    computer_pace: Literal["normal", "fast"] = Field(
        default="normal", description="How fast the computer players move"
    )
    public: bool = Field(description="Listed for anyone to join or watch, and rated")
    turn_seconds: int | None = Field(description="The turn timer, null for none")
    fairness: FairnessOut

    @classmethod
    def of(cls, view: GameView, base_url: str) -> GameOut:
        """The game's JSON shape, made without validation: the server built ``view`` itself
        (tests/web/test_api.py checks that what it makes validates as it is)."""
        return cls.model_construct(
            id=view.id,
            url=f"{base_url.rstrip('/')}/games/{view.id}",
            status=view.status.value,
            closed_reason=view.closed_reason.value if view.closed_reason else None,
            computer_pace="fast" if view.computer_pace == "fast" else "normal",
            public=view.public,
            turn_seconds=view.turn_seconds,
            version=view.version,
            round=view.round,
            turn=view.turn,
            rolls_left=view.rolls_left,
            dice=list(view.dice) if view.dice else None,
            held=list(view.held),
            options={box: option.points for box, option in view.options.items()},
            bonus=view.bonus,
            must_sacrifice=view.must_sacrifice,
            deadline=view.deadline,
            players=[_player_out(player) for player in view.players],
            winners=list(view.winners),
            fairness=_fairness_out(view.fairness),
        )


# A move changes one player's sheet at most, and the dice's seeds change at the start and the
# end only: the players' and the seeds' shapes are made once for all the versions that show
# them alike (never changed once made). ``GameOut.of`` takes a third of the time it did
# (docs/performance.md); the shapes kept take a few MB at most.
_KEPT_SHAPES = 2048


@lru_cache(maxsize=_KEPT_SHAPES)
def _player_out(player: PlayerView) -> PlayerOut:
    return PlayerOut.model_construct(
        seat=player.seat,
        name=player.name,
        computer=player.computer,
        stand_in=player.stand_in,
        player_id=player.player_id,
        boxes={box: player.sheet[box] for box in BOXES},
        upper_subtotal=player.sheet.upper_subtotal,
        upper_bonus=player.sheet.upper_bonus,
        penta_bonus=player.sheet.penta_bonus,
        total=player.sheet.total,
    )


@lru_cache(maxsize=_KEPT_SHAPES)
def _fairness_out(fairness: Fairness) -> FairnessOut:
    return FairnessOut.model_construct(
        commitment=fairness.commitment,
        client_seeds=[
            ClientSeedOut.model_construct(seat=seed.seat, client_seed=seed.seed)
            for seed in fairness.client_seeds
        ],
        server_seed=fairness.server_seed,
        scheme=fairness.scheme,
        verifiable=fairness.verifiable,
    )


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


LanguageCode = Literal["en", "fr", "fi", "hu", "th", "he"]
"""The languages Penta speaks (app/i18n.py's LANGUAGES)."""


class CreateIn(_Strict):
    name: str = Field(min_length=1, max_length=32)
    turn_seconds: Literal[30, 60, 120] | None = None
    computer_pace: Literal["normal", "fast"] = Field(
        default="normal", description="How fast the computer players move"
    )
    public: bool = Field(
        default=False,
        description="Listed for anyone to join or watch, and rated (a 60 s turn timer if none)",
    )
    language: LanguageCode | None = Field(
        default=None, description="The language the table plays in, as its listing says"
    )


OptionalClientSeed = Field(
    default=None,
    pattern=CLIENT_SEED_PATTERN,
    description="Your seed for the dice (1-64 printable ASCII); the server makes one if absent",
)


class JoinIn(_Strict):
    name: str = Field(min_length=1, max_length=32)
    client_seed: str | None = OptionalClientSeed


class StartIn(_Strict):
    client_seed: str | None = OptionalClientSeed


class ClientSeedIn(_Strict):
    client_seed: str = Field(
        pattern=CLIENT_SEED_PATTERN, description="Your new seed (1-64 printable ASCII)"
    )


class RollLogOut(BaseModel):
    n: int = Field(description="The roll's number in the game, from 0, over every seat")
    turn: int = Field(description="The turn it was made in, from 0, over every seat")
    seat: int
    held: list[bool] = Field(description="The dice held when it was rolled")
    dice: list[int] = Field(description="The five dice after the roll")


class LogOut(BaseModel):
    game_id: str
    status: Status
    seats: int = Field(description="The game's seats, computers' included")
    computers: list[int] = Field(description="The seats the computer plays (they have no seed)")
    fairness: FairnessOut
    rolls: list[RollLogOut]

    @classmethod
    def of(cls, view: GameView, rolls: list[LoggedRoll]) -> LogOut:
        return cls(
            game_id=view.id,
            status=view.status.value,
            seats=len(view.players),
            computers=[player.seat for player in view.players if player.computer],
            fairness=FairnessOut.of(view.fairness),
            rolls=[
                RollLogOut(
                    n=roll.number,
                    turn=roll.turn,
                    seat=roll.seat,
                    held=list(roll.held),
                    dice=list(roll.dice),
                )
                for roll in rolls
            ],
        )


class SeatOut(BaseModel):
    game: GameOut
    token: str = Field(description="The seat's secret: send it as `Authorization: Bearer …`")


class VersionIn(_Strict):
    version: int | None = Field(
        default=None, description="The version you saw; a newer game answers 409 stale"
    )


class RollIn(VersionIn):
    hold: list[int] = Field(
        default_factory=list, max_length=5, description="Indices (0-4) of the dice kept"
    )


class ScoreIn(VersionIn):
    box: Box


class BoxAdvice(BaseModel):
    points: int
    expected: float = Field(description="Expected final total if the roll goes here")


class AdviceOut(BaseModel):
    best_box: Box | None
    best_hold: list[int] | None = Field(description="Indices of the dice to keep; null if none")
    boxes: dict[Box, BoxAdvice]
    optimal: bool = Field(
        description="False while the server still builds the optimal strategy's table (a few "
        "seconds after a first start): the advice is then a simple fallback's"
    )


class ErrorBody(BaseModel):
    code: str
    message: str


class ErrorOut(BaseModel):
    error: ErrorBody


class DecisionOut(BaseModel):
    round: int
    roll: int = Field(description="Rolls made before the decision")
    kind: Literal["hold", "box"]
    dice: list[int]
    chosen: str = Field(description="The box, or the kept dice as digits")
    best: str
    chosen_expected: float
    best_expected: float
    loss: float

    @classmethod
    def of(cls, decision: Decision) -> DecisionOut:
        return cls(
            round=decision.round,
            roll=decision.roll,
            kind=decision.kind,
            dice=list(decision.dice),
            chosen=decision.chosen,
            best=decision.best,
            chosen_expected=decision.chosen_expected,
            best_expected=decision.best_expected,
            loss=decision.loss,
        )


class PlayerReviewOut(BaseModel):
    seat: int
    name: str
    total: int
    start_expected: float
    expected_loss: float
    optimal_share: float
    luck: float
    used_hints: bool
    costliest: list[DecisionOut]
    decisions: list[DecisionOut]


class ReviewOut(BaseModel):
    game: GameOut
    players: list[PlayerReviewOut]


# -- players -------------------------------------------------------------------------------


class NameIn(_Strict):
    name: str = Field(min_length=1, max_length=32)


class PersonOut(BaseModel):
    id: str = Field(description="The player's public id: their profile is /players/{id}")
    name: str


class PlayerTokenOut(BaseModel):
    player: PersonOut
    token: str = Field(description="Your player token: send it as X-Player-Token; keep it secret")


class RatingOut(BaseModel):
    value: int = Field(description="The rating as shown (a new player: 1500)")
    plus_minus: int | None = Field(
        description="Its uncertainty (two sigmas) while provisional (fewer than 5 rated games)"
    )
    rated_games: int
    mu: float = Field(description="OpenSkill Plackett-Luce mu (the shown value is 60 mu)")
    sigma: float


class SeatSummaryOut(BaseModel):
    game_id: str
    status: Status
    public: bool
    seat: int = Field(description="The player's seat in it")
    players: list[str] = Field(description="Every seat's name, in seat order")
    totals: list[int | None] = Field(description="Every seat's final total, null before the end")
    rank: int | None = Field(description="The player's place (1: won; ties share), once over")


class TotalsOut(BaseModel):
    played: int = Field(description="Finished games")
    wins: int = Field(description="Games of two or more players finished first (ties count)")
    average: float | None
    best: int | None
    pentas: int = Field(description="Pentas scored for points")


class ProfileOut(BaseModel):
    player: PersonOut
    rating: RatingOut
    totals: TotalsOut
    finished: list[SeatSummaryOut] = Field(description="The newest finished games (20)")
    playing: list[SeatSummaryOut] | None = Field(
        default=None, description="Mine only: the games in play or waiting"
    )
    my_turn: list[str] | None = Field(
        default=None, description="Mine only: the ids of the games waiting for my move"
    )


class LeaderOut(BaseModel):
    rank: int
    player: PersonOut
    rating: RatingOut


class TableOut(BaseModel):
    game_id: str
    status: Status
    players: list[str]
    round: int
    turn_seconds: int | None
    language: str | None = Field(description="The language the table plays in, if said")


class MatchIn(_Strict):
    name: str = Field(min_length=1, max_length=32)
    client_seed: str | None = OptionalClientSeed
    two_players_only: bool = Field(default=False, description="A table of two, not up to four")
    language: LanguageCode | None = Field(
        default=None, description="Yours: the table's language if you sit first"
    )


class MatchOut(BaseModel):
    waiting: int = Field(description="Players waiting now, you included")
    seconds_left: float = Field(description="Before your wait ends")
    game_id: str | None = Field(
        description="The table you were matched to: your ticket is your seat's token there"
    )
    alone: bool = Field(description="The wait ended with nobody else: wait again, or leave")


class TicketOut(MatchOut):
    token: str = Field(
        description="Your ticket: send it as a bearer token to ask; once matched, your seat's"
    )
