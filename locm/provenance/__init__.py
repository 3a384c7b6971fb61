"""Where a result came from: the store's signing key, signed export files and ledgers (`locm.provenance.signing`)."""
