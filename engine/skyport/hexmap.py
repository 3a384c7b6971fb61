"""Skyport's hex map: the official ``.skyportmap`` format, and the geometry of (j, k) coordinates (R-MAP, R-HEX).

A map file has three header lines (``players N``, ``size N``, ``description "..."``) and then the map drawn as
hexagons, one line per horizontal row of the drawing. The server removes ``/``, ``\\``, ``_``, spaces and tabs
from each line and skips lines left empty; each remaining character is one tile. The rows have 1, 2, ...,
``size``, ..., 2, 1 tiles: row ``r`` holds the tiles with ``j + k == r``, from the largest ``j`` to the
smallest. Unlike the server (which skips a row of the wrong length with a warning and reads on), the reader
here refuses a map that is not exactly that shape, with one line saying where and why.

Coordinates: ``(j, k)``, both from 0 to ``size - 1``; (0, 0) is the top corner. The six directions change
(j, k) by: up (-1, -1), down (+1, +1), left-up (0, -1), right-down (0, +1), left-down (+1, 0),
right-up (-1, 0). A position outside the square has no tile (the server's null neighbour: the map's edge).
"""

from __future__ import annotations

import math

from locm.engine.errors import LocmError
from locm.events.skyport.rules import GameMap

Pos = tuple[int, int]

DIRECTIONS: dict[str, Pos] = {
    "up": (-1, -1), "down": (1, 1), "left-up": (0, -1), "left-down": (1, 0), "right-up": (-1, 0),
    "right-down": (0, 1),
}
DIRECTION_NAMES = tuple(DIRECTIONS)
AREA_ORDER = ("up", "down", "right-down", "right-up", "left-down", "left-up")
"""The order in which the server hurts the six tiles around an impact (events follow it)."""

GRASS, VOID, SPAWN, EXPLOSIUM, RUBIDIUM, SCRAP, ROCK = "G", "V", "S", "E", "R", "C", "O"
TILE_NAMES = {GRASS: "GRASS", VOID: "VOID", SPAWN: "SPAWN", EXPLOSIUM: "EXPLOSIUM", RUBIDIUM: "RUBIDIUM",
              SCRAP: "SCRAP", ROCK: "ROCK"}
"""Each tile letter and the server's name for its type (as its error messages write it)."""
WALKABLE = frozenset((GRASS, EXPLOSIUM, RUBIDIUM, SCRAP))
"""The tiles a robot may walk onto (R-TILES); void, spawn and rock it may not."""
RESOURCE_OF = {RUBIDIUM: "rubidium", EXPLOSIUM: "explosium", SCRAP: "scrap"}
"""The resource a tile holds (R-MINE)."""
MAX_SIZE = 99
_STRIPPED = str.maketrans("", "", "/\\_ \t")


class MapError(LocmError):
    """A ``.skyportmap`` text that is not a map: ``source`` and ``line`` (1-based, 0 when not one line)."""

    def __init__(self, source: str, line: int, message: str) -> None:
        self.source, self.line = source, line
        where = f"{source}:{line}" if line else source
        super().__init__(f"{where}: {message}")


def parse_map(text: str, name: str = "", source: str = "map") -> GameMap:
    """The map of a ``.skyportmap`` text (R-MAP). Raises `MapError` for anything the format does not allow."""
    lines = text.replace("\r\n", "\n").split("\n")
    if len(lines) < 3:
        raise MapError(source, 0, "expected three header lines (players, size, description) and the map")
    players = _header_int(lines[0], "players", source, 1)
    size = _header_int(lines[1], "size", source, 2)
    if not 2 <= size <= MAX_SIZE:
        raise MapError(source, 2, f"expected a size from 2 to {MAX_SIZE}, got {size}")
    desc = lines[2].strip()
    if not desc.startswith("description") or not desc[len("description"):].strip():
        raise MapError(source, 3, "expected 'description \"...\"'")
    quoted = desc[len("description"):].strip()
    if len(quoted) < 2 or quoted[0] != '"' or quoted[-1] != '"':
        raise MapError(source, 3, f"expected the description in double quotes, got {quoted[:40]!r}")
    grid = [[""] * size for _ in range(size)]
    row = 0
    for number, line in enumerate(lines[3:], start=4):
        tiles = line.translate(_STRIPPED)
        if not tiles:
            continue
        if row == 2 * size - 1:
            raise MapError(source, number, f"expected nothing after the {2 * size - 1} rows of the map, "
                                           f"got {tiles[:20]!r}")
        want = row + 1 if row < size else 2 * size - 1 - row
        if len(tiles) != want:
            raise MapError(source, number, f"expected row {row + 1} of the map to have {want} tiles, got {len(tiles)}")
        bad = [c for c in tiles if c not in TILE_NAMES]
        if bad:
            raise MapError(source, number, f"expected tiles G, V, S, E, R, C or O, got {bad[0]!r}")
        j = min(row, size - 1)
        k = row - j
        for c in tiles:
            grid[j][k] = c
            j, k = j - 1, k + 1
        row += 1
    if row < 2 * size - 1:
        raise MapError(source, 0, f"expected {2 * size - 1} rows of tiles for size {size}, got {row}")
    game_map = GameMap(name=name, description=quoted[1:-1], players=players, size=size,
                       rows=tuple("".join(r) for r in grid))
    if not spawn_tiles(game_map):
        raise MapError(source, 0, "expected at least one spawn tile (S), got none")
    return game_map


def _header_int(line: str, key: str, source: str, number: int) -> int:
    parts = line.split()  # the server reads the second word; anything after it is a comment
    if len(parts) < 2 or parts[0] != key or not parts[1].isascii() or not parts[1].isdigit():
        raise MapError(source, number, f"expected '{key} N', got {line.strip()[:40]!r}")
    return int(parts[1])


def format_map(game_map: GameMap) -> str:
    """The map as a ``.skyportmap`` text in the official drawing (which `parse_map` reads back)."""
    n = game_map.size
    out = [f"players {game_map.players}", f"size {n}", f'description "{game_map.description}"',
           " " * (3 * n) + "__"]
    for r in range(2 * n - 1):
        tiles = [game_map.rows[j][r - j] for j in range(min(r, n - 1), max(-1, r - n), -1)]
        cells = "".join(f"/{t} \\__" for t in tiles)
        if r < n - 1:
            out.append(" " * (3 * (n - 1 - r)) + "__" + cells)
        elif r == n - 1:
            out.append("  " + cells[:-2])
        else:
            out.append(" " * (2 + 3 * (r - n)) + "\\__" + cells + "/")
    out.append(" " * (2 + 3 * (n - 1)) + "\\__/")
    return "\n".join(out) + "\n"


def spawn_tiles(game_map: GameMap) -> list[Pos]:
    """The spawn tiles in the order the server lists them before its shuffle: j-major, then k."""
    return [(j, k) for j, row in enumerate(game_map.rows) for k, c in enumerate(row) if c == SPAWN]


def step(pos: Pos, direction: str) -> Pos:
    dj, dk = DIRECTIONS[direction]
    return pos[0] + dj, pos[1] + dk


def on_map(pos: Pos, size: int) -> bool:
    return 0 <= pos[0] < size and 0 <= pos[1] < size


def neighbours(pos: Pos, size: int, order: tuple[str, ...] = AREA_ORDER) -> list[Pos]:
    """The tiles around `pos` that exist, in `order` (default: the server's order of area damage)."""
    out = []
    for d in order:
        p = step(pos, d)
        if on_map(p, size):
            out.append(p)
    return out


def distance(a: Pos, b: Pos) -> int:
    """Steps between two tiles on the hex grid."""
    dj, dk = b[0] - a[0], b[1] - a[1]
    return max(abs(dj), abs(dk), abs(dj - dk))


def _int32(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x & 0x80000000 else x


def mortar_distance(dj: int, dk: int) -> int:
    """The server's mortar range of a relative vector: ``ceil(sqrt(j² + k² - 2·j·k·0.5))`` in Java's double
    arithmetic, the int product ``2·j·k`` wrapping as Java's does (R-MORTAR). Equals `distance` for every
    vector of fewer than about eight steps."""
    value = float(dj) ** 2 + float(dk) ** 2 - _int32(_int32(2 * dj) * dk) * 0.5
    if value != value or value < 0:
        return 0
    return int(min(math.ceil(math.sqrt(value)), (1 << 31) - 1))


def clamp_walk(pos: Pos, vector: Pos, size: int) -> Pos:
    """Where a mortar shell aimed at `pos` + `vector` lands: the server walks the j part, then the k part, and
    stops each at the map's edge."""
    return min(max(pos[0] + vector[0], 0), size - 1), min(max(pos[1] + vector[1], 0), size - 1)


__all__ = ["Pos", "DIRECTIONS", "DIRECTION_NAMES", "AREA_ORDER", "TILE_NAMES", "WALKABLE", "RESOURCE_OF",
           "GRASS", "VOID", "SPAWN", "EXPLOSIUM", "RUBIDIUM", "SCRAP", "ROCK", "MapError", "parse_map",
           "format_map", "spawn_tiles", "step", "on_map", "neighbours", "distance", "mortar_distance",
           "clamp_walk"]
