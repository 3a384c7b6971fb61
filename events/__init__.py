"""Domain events: the base every game's events share (`events.base`), the generic codec of one game's event union
(`events.codec`), and one catalog and codec per game (`events.locm`, `events.mcg`, `events.skyport`). Pure data:
no I/O."""
