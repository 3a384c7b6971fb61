"""Domain events: the base every game's events share (`events.base`), the generic codec (`events.locm.codec`), and
one catalog per game (`events.locm`, `events.mcg`, `events.skyport`). Pure data: no I/O."""
