"""Skyport on the engine: the rules core of the 2013 competition server (see data/skyport/RULES.md)."""
