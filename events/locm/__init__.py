"""Domain events of LOCM games and their codecs. Pure data: no I/O."""
