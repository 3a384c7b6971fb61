"""Running bots for any game: a bot's process (`botprocess`), its one-line turns, time limits and how an agent given
on the command line is read (`bots`), processes that die with their parent and bots' descendants that must not
outlive their game (`processes`), the sandbox (`sandbox/`). A game's own agents are in its wing
(`locm.games.locm.bots`)."""
