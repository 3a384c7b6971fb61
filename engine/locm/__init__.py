"""Legends of Code and Magic on the engine: its pure rules core, byte-exact with the official referee (rules:
``data/LOCM-RULES.md``, ``data/LOCM-EXTRA-RULES.md``); its game definition is `engine.locm.definition`."""
