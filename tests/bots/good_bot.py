"""A bot that plays legal-ish moves: PASS while building its deck, then summons and attacks the face."""

from botlib import answer, good_answer, turns

for _, turn in turns():
    answer(good_answer(turn))
