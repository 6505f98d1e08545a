"""Hypothesis strategies shared by the rules' property tests and state machine."""

from hypothesis import strategies as st

die = st.integers(min_value=1, max_value=6)
# A fair share of Pentas, so that bonuses and jokers happen.
dice_strategy = st.one_of(
    st.tuples(die, die, die, die, die), die.map(lambda face: (face, face, face, face, face))
)
holds = st.tuples(*[st.booleans()] * 5)
