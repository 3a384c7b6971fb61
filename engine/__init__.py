"""The rules core of every game: pure functions over game state, no I/O beyond reading static data files.

The generic part knows no game: `engine.seam` (`GameDef`, what a game is to the core), `engine.registry` (the
games: the built-in three and those other packages register through the ``locm.games`` entry points),
`engine.core` (play and verify any game), `engine.history`, `engine.logcheck`. Each game has its own wing:
`engine.locm` (Legends of Code and Magic, 1.2 and constructed), `engine.mcg` (my-card-game, its economy
included) and `engine.skyport`. Importing this package refuses a compiled core whose sources changed since its
build (`engine.corebuild`).
"""

from locm.engine.corebuild import core as _core, refuse_stale as _refuse_stale

_refuse_stale()  # a compiled core whose sources changed since its build is refused (engine/corebuild.py)
_core()  # a LOCM_CORE that names no core built here is refused (engine/corebuild.py)
