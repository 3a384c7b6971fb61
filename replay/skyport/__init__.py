"""Skyport's readers: the 2013 server's logs (`oracle`) and the conformance check against them."""
