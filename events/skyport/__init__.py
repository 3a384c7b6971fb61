"""Domain events of Skyport games, their rules and map shapes, and their codec. Pure data: no I/O."""

from locm.events.skyport.catalog import *  # noqa: F401,F403
from locm.events.skyport.rules import GameMap, SkyportRules, Weapon  # noqa: F401
