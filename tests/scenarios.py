"""Situations the tests reach with scripted dice (``PENTA_DICE_SCRIPT``)."""

SACRIFICE_DICE = "1,1,3,4,6"
"""Dealt in a cycle, every roll is 1, 1, 3, 4, 6."""

BOXES_BEFORE_SACRIFICE = (
    "ones",
    "twos",
    "threes",
    "fours",
    "fives",
    "sixes",
    "three_of_a_kind",
    "four_of_a_kind",
    "small_straight",
    "penta",
    "chance",
)
"""Filled in this order with 1, 1, 3, 4, 6, each turn still has a legal box that scores (Chance
last, since once it is used a Penta turn would find nothing). Then only Full house and Large
straight are left, and both score 0: one must be sacrificed."""
