"""LOCM's readers: official referee logs (`conformance`), and the text of its boards and events."""
