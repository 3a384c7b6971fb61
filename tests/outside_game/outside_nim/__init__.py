"""Nim for 2 or 3 players, a game locm knows only through its `locm.games` entry point (`definition.GAME`)."""
