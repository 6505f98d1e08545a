"""Penta: a Yahtzee-family dice game with an optimal computer player."""
