"""`locm arena`: a live web view of a store (`locm.arena.app`), read-only (`locm.arena.readmodel`)."""
