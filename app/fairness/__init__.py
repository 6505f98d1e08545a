"""Verifiable dice (issue #17): the scheme that deals every die of a game with a server seed.

The server commits to a secret seed before anyone rolls, every human seat mixes in a seed of
its own, and once the game is over the secret is revealed so that anyone can recompute every
roll. The scheme is spelled out in ``docs/fairness.md``; these are its formulas, pure and from
the standard library only, so that the service deals with exactly what a verifier recomputes.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterator, Sequence

SCHEME = 2
"""How new games combine their seeds into each roll's message (:func:`roll_message`)."""

SERVER_SEED_BYTES = 32
"""A server seed is 32 bytes from :mod:`secrets`."""

CLIENT_SEED_PATTERN = r"^[\x20-\x7e]{1,64}$"
"""A client seed: 1 to 64 printable ASCII characters (space to tilde)."""

_CLIENT_SEED = re.compile(CLIENT_SEED_PATTERN)

REJECTED_FROM = 252
"""Bytes from 252 up are skipped: 252 is the largest multiple of 6 a byte holds, so each kept
byte modulo 6 gives every face with the same probability."""


def commitment(server_seed: bytes) -> str:
    """What the game publishes from its creation: the SHA-256 of the server seed, in hex.

    >>> commitment(bytes(32))
    '66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925'
    """
    return hashlib.sha256(server_seed).hexdigest()


def is_client_seed(text: str) -> bool:
    """Whether ``text`` is a valid client seed.

    >>> is_client_seed("a1b2"), is_client_seed(""), is_client_seed("é"), is_client_seed("x" * 65)
    (True, False, False, False)
    """
    return _CLIENT_SEED.fullmatch(text) is not None


def roll_message(
    game_id: str, number: int, client_seeds: Sequence[tuple[int, str]], scheme: int = SCHEME
) -> str:
    """The message of roll ``number`` (counted from 0 over the whole game, every seat).

    ``client_seeds`` are the human seats' ``(seat, seed)`` in seat order (computer seats have
    none). Scheme 2 names each seat and gives its seed in hex, so no two sets of seeds make
    one message; scheme 1, of the games before it, joined the seeds with ``:``, which a seed
    may hold (``"a:b"`` alone and ``"a"``, ``"b"`` gave the same message).

    >>> roll_message("g1", 3, [(0, "ab"), (2, "c:d")])
    '2:g1:3:0=6162,2=633a64'
    >>> roll_message("g1", 3, [(0, "ab"), (2, "cd")], scheme=1)
    'g1:3:ab:cd'
    """
    if scheme == 1:
        return f"{game_id}:{number}:" + ":".join(seed for _seat, seed in client_seeds)
    if scheme != 2:
        raise ValueError(f"no dice scheme {scheme}")
    seats = ",".join(f"{seat}={seed.encode('ascii').hex()}" for seat, seed in client_seeds)
    return f"2:{game_id}:{number}:{seats}"


def faces(server_seed: bytes, message: str) -> Iterator[int]:
    """The endless stream of die faces of one roll: the bytes of
    ``HMAC-SHA256(server_seed, f"{message}:{k}")`` for k = 0, 1, 2, …, bytes from 252 up
    skipped, each kept byte ``b`` giving ``b % 6 + 1``.

    >>> stream = faces(bytes(32), "g1:0:ab")
    >>> [next(stream) for _ in range(5)]
    [3, 5, 3, 4, 1]
    """
    block = 0
    while True:
        digest = hmac.new(server_seed, f"{message}:{block}".encode(), hashlib.sha256).digest()
        for byte in digest:
            if byte < REJECTED_FROM:
                yield byte % 6 + 1
        block += 1
