"""The LOCM rules core: pure functions over game state; no I/O beyond reading the static card data."""
