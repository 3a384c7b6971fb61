"""Domain events of my-card-game: a match's catalog, an account's, the rules and card shapes they carry, and
their codecs. Pure data: no I/O."""
