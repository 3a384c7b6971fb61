"""Domain events of LOCM games and their codecs. Pure data: no I/O."""

from locm.events.catalog import *  # noqa: F401,F403
from locm.events.catalog import AnyEvent, Event, EVENT_TYPES, SCHEMA_VERSION  # noqa: F401
