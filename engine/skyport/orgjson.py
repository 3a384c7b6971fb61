"""The JSON the Skyport server reads and writes: org.json as bundled with the 2013 server (R-PROTO-JSON).

The server parses every client line with org.json's lenient `JSONObject(String)`: single-quoted and unquoted
strings, ``=``/``=>`` after a key, ``;`` between pairs, a trailing comma, text after the closing brace, and
numbers read by Java's rules. Its error texts (``Expected a ',' or '}' at 35 [character 36 line 1]``) reach
the client inside ``{"error": ...}``, so this module reproduces them, counting positions in UTF-16 units as
Java does. Written from the behaviour of org.json (the server's copy, 2013), not from its code.

Values map to Python as: JSONObject -> dict (insertion order kept), JSONArray -> list, String -> str,
Integer/Long -> int, Double -> float, Boolean -> bool, JSONObject.NULL -> None.

`java_str` is Java's ``String.valueOf`` of a value (what the server's messages concatenate): a nested object
is written in the order of Java's ``HashMap`` (`hashmap_order`).
"""

from __future__ import annotations

import decimal
import re
import unicodedata
from typing import Any

JSON = Any
"""A parsed value (see the module docstring)."""

_STOPS = ",:]}/\\\"[{;=#"
_DOUBLE = re.compile(
    r"[+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)"
    r"|(0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|[0-9a-fA-F]*\.[0-9a-fA-F]+)[pP][+-]?\d+))[fFdD]?", re.ASCII)
_INT_MIN, _INT_MAX = -(1 << 31), (1 << 31) - 1
MAX_DEPTH = 300
"""Objects and arrays nested deeper than this end the reading as a Java stack overflow would (`JavaCrash`).
Java's limit depends on its thread stack; the lines a client sends in practice are nowhere near it."""
_LONG_MIN, _LONG_MAX = -(1 << 63), (1 << 63) - 1


class JSONError(ValueError):
    """org.json's JSONException: the line is not what the server accepts; ``str()`` is org.json's message."""


class JavaCrash(Exception):
    """A Java runtime exception org.json lets through (``\\u`` followed by no hex number): the server's thread
    that was reading dies with it."""


def java_units(text: str) -> str:
    """`text` as Java sees it: one character per UTF-16 unit (astral characters as surrogate pairs)."""
    if text.isascii() or all(ord(c) < 0x10000 for c in text):
        return text
    return "".join(c if ord(c) < 0x10000 else chr(0xD800 + ((ord(c) - 0x10000) >> 10)) + chr(0xDC00 + (ord(c) & 0x3FF))
                   for c in text)


def from_units(text: str) -> str:
    """The inverse of `java_units` (a lone surrogate stays as it is)."""
    if text.isascii():
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


class _Tokener:
    """org.json's JSONTokener over one line: the position counters behave as Java's, quirks included (a NUL
    character reads as the end of the text)."""

    __slots__ = ("s", "pos", "index", "character", "line", "previous", "use_previous", "eof", "depth")

    def __init__(self, text: str) -> None:
        self.depth = 0
        self.s = java_units(text)
        self.pos = 0
        self.index = 0
        self.character = 1
        self.line = 1
        self.previous = 0
        self.use_previous = False
        self.eof = False

    def error(self, message: str) -> JSONError:
        return JSONError(f"{message} at {self.index} [character {self.character} line {self.line}]")

    def back(self) -> None:
        if self.use_previous or self.index <= 0:
            raise JSONError("Stepping back two steps is not supported")
        self.index -= 1
        self.character -= 1
        self.use_previous = True
        self.eof = False

    def end(self) -> bool:
        return self.eof and not self.use_previous

    def next(self) -> int:
        if self.use_previous:
            self.use_previous = False
            c = self.previous
        else:
            if self.pos < len(self.s):
                c = ord(self.s[self.pos])
                self.pos += 1
            else:
                c = -1
            if c <= 0:
                self.eof = True
                c = 0
        self.index += 1
        if self.previous == 13:
            self.line += 1
            self.character = 0 if c == 10 else 1
        elif c == 10:
            self.line += 1
            self.character = 0
        else:
            self.character += 1
        self.previous = c
        return c

    def next_n(self, n: int) -> str:
        out = []
        for _ in range(n):
            out.append(chr(self.next()))
            if self.end():
                raise self.error("Substring bounds error")
        return "".join(out)

    def clean(self) -> int:
        while True:
            c = self.next()
            if c == 0 or c > 32:
                return c

    def string(self, quote: int) -> str:
        out: list[str] = []
        while True:
            c = self.next()
            if c in (0, 10, 13):
                raise self.error("Unterminated string")
            if c == 92:  # backslash
                c = self.next()
                if c == 117:  # u
                    code = _parse_java_int(self.next_n(4), 16)
                    if code is None:
                        raise JavaCrash("NumberFormatException in a \\u escape")
                    out.append(chr(code & 0xFFFF))
                elif chr(c) in _ESCAPES:
                    out.append(_ESCAPES[chr(c)])
                else:
                    raise self.error("Illegal escape.")
            elif c == quote:
                return "".join(out)
            else:
                out.append(chr(c))

    def value(self) -> JSON:
        c = self.clean()
        if c in (34, 39):
            return from_units(self.string(c))
        if c in (91, 123):
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise JavaCrash("nested too deep: Java's reader thread overflows its stack")
            self.back()
            value = self.object() if c == 123 else self.array()
            self.depth -= 1
            return value
        out = []
        while c >= 32 and chr(c) not in _STOPS:
            out.append(chr(c))
            c = self.next()
        self.back()
        text = _java_trim("".join(out))
        if text == "":
            raise self.error("Missing value")
        return string_to_value(from_units(text))

    def object(self) -> dict[str, JSON]:
        if self.clean() != 123:
            raise self.error("A JSONObject text must begin with '{'")
        obj: dict[str, JSON] = {}
        while True:
            c = self.clean()
            if c == 0:
                raise self.error("A JSONObject text must end with '}'")
            if c == 125:
                return obj
            self.back()
            key = java_str(self.value())
            c = self.clean()
            if c == 61:  # '=' or '=>'
                if self.next() != 62:
                    self.back()
            elif c != 58:
                raise self.error("Expected a ':' after a key")
            value = self.value()
            if key in obj:
                raise JSONError(f'Duplicate key "{key}"')
            obj[key] = value
            c = self.clean()
            if c in (59, 44):
                if self.clean() == 125:
                    return obj
                self.back()
            elif c == 125:
                return obj
            else:
                raise self.error("Expected a ',' or '}'")

    def array(self) -> list[JSON]:
        if self.clean() != 91:
            raise self.error("A JSONArray text must start with '['")
        items: list[JSON] = []
        if self.clean() == 93:
            return items
        self.back()
        while True:
            if self.clean() == 44:
                self.back()
                items.append(None)
            else:
                self.back()
                items.append(self.value())
            c = self.clean()
            if c in (59, 44):
                if self.clean() == 93:
                    return items
                self.back()
            elif c == 93:
                return items
            else:
                raise self.error("Expected a ',' or ']'")


_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "'": "'", "\\": "\\", "/": "/"}


def parse_object(line: str) -> dict[str, JSON]:
    """``new JSONObject(line)``: the object at the start of `line` (anything after it is ignored).

    Raises `JSONError` with org.json's message, or `JavaCrash`."""
    return _Tokener(line).object()


def _java_trim(text: str) -> str:
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end]


def string_to_value(text: str) -> JSON:
    """org.json's ``stringToValue``: an unquoted token as true/false/null, a number, or the string itself."""
    if text == "":
        return text
    low = text.lower()
    if low == "true":
        return True
    if low == "false":
        return False
    if low == "null":
        return None
    if text[0] in "0123456789.-+":
        if "." in text or "e" in text or "E" in text:
            d = parse_java_double(text)
            if d is not None and d not in (float("inf"), float("-inf")) and d == d:
                return d
        else:
            n = _parse_java_int(text, 10, _LONG_MIN, _LONG_MAX)
            if n is not None:
                return n
    return text


def parse_java_double(text: str) -> float | None:
    """``Double.valueOf(text)``, or None where Java throws NumberFormatException."""
    text = _java_trim(text)
    if not _DOUBLE.fullmatch(text):
        return None
    body = text[:-1] if text[-1] in "fFdD" and "x" not in text.lower() else text
    if body.lstrip("+-") in ("NaN", "Infinity"):
        return float(body.replace("Infinity", "inf").replace("NaN", "nan"))
    if "x" in body.lower():
        if body[-1] in "fFdD":
            body = body[:-1]
        sign = -1.0 if body.startswith("-") else 1.0
        return sign * float.fromhex(body.lstrip("+-"))
    return float(body)


def _parse_java_int(text: str, radix: int = 10, low: int = _INT_MIN, high: int = _INT_MAX) -> int | None:
    """``Integer.parseInt(text, radix)`` (or ``Long.parseLong`` with the long bounds): a sign, then digits
    (any Unicode decimal digit, as Java's ``Character.digit``), no spaces; None where Java throws."""
    if not text:
        return None
    sign = 1
    digits = text
    if text[0] in "+-":
        sign = -1 if text[0] == "-" else 1
        digits = text[1:]
        if not digits:
            return None
    value = 0
    for ch in digits:
        d = int(ch, 16) if radix == 16 and ch in "abcdefABCDEF" else unicodedata.decimal(ch, -1)
        if d < 0 or d >= radix:
            return None
        value = value * radix + d
    value *= sign
    return value if low <= value <= high else None


def parse_java_int(text: str) -> int | None:
    """``Integer.parseInt(text)``, or None where Java throws NumberFormatException."""
    return _parse_java_int(text)


def java_int_value(value: JSON) -> int | None:
    """org.json's ``getInt`` of a value: a number's ``intValue()`` (a long wraps, a double truncates), a
    string by ``Integer.parseInt``; None where org.json reports "is not an int."."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        low: int = value & 0xFFFFFFFF
        return low - (1 << 32) if low & 0x80000000 else low
    if isinstance(value, float):
        return max(_INT_MIN, min(_INT_MAX, int(value)))
    if isinstance(value, str):
        return _parse_java_int(value)
    return None


# --- writing ------------------------------------------------------------------------------------------------


def java_double_str(d: float) -> str:
    """Java's ``Double.toString``: ``1.0``, ``0.001``, ``1.0E7``, ``1.25E-4``."""
    if d == 0:
        return "-0.0" if str(d).startswith("-") else "0.0"
    sign = "-" if d < 0 else ""
    digits, exp = _shortest(abs(d))  # value = 0.DIGITS * 10**exp
    if 1e-3 <= abs(d) < 1e7:
        if exp <= 0:
            return f"{sign}0.{'0' * -exp}{digits}"
        whole, frac = digits[:exp].ljust(exp, "0"), digits[exp:]
        return f"{sign}{whole}.{frac or '0'}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exp - 1}"


def _shortest(d: float) -> tuple[str, int]:
    t = decimal.Decimal(repr(d)).normalize().as_tuple()
    digits = "".join(map(str, t.digits))
    return digits, len(digits) + int(t.exponent)


def java_str(value: JSON) -> str:
    """``String.valueOf`` of a parsed value, as the server's messages and object keys show it."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return java_double_str(value)
    return to_json_text(value)


def to_json_text(value: JSON) -> str:
    """org.json's ``toString()`` of a value: no spaces, an object's keys in `hashmap_order`."""
    if isinstance(value, dict):
        return "{" + ",".join(quote(k) + ":" + to_json_text(value[k]) for k in hashmap_order(list(value))) + "}"
    if isinstance(value, list):
        return "[" + ",".join(to_json_text(v) for v in value) + "]"
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, float):
        text = java_double_str(value)
        if "." in text and "E" not in text:
            text = text.rstrip("0").rstrip(".")
        return text
    return java_str(value)


def quote(text: str) -> str:
    """org.json's ``JSONObject.quote``."""
    out = ['"']
    prev = ""
    for c in java_units(text):
        if c in '\\"':
            out.append("\\" + c)
        elif c == "/":
            out.append("\\/" if prev == "<" else "/")
        elif c in "\b\t\n\f\r":
            out.append({"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}[c])
        elif c < " " or "\u0080" <= c < "\u00a0" or "\u2000" <= c < "\u2100":
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
        prev = c
    out.append('"')
    return from_units("".join(out))


def java_hash(text: str) -> int:
    """``String.hashCode`` (signed 32 bits)."""
    h = 0
    for c in java_units(text):
        h = (31 * h + ord(c)) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def hashmap_order(keys: list[str]) -> list[str]:
    """The iteration order of a ``java.util.HashMap`` (default capacity, load factor 0.75) into which `keys`
    were put in this order: by bucket at the final capacity, insertion order within a bucket."""
    capacity = 16
    for size in range(1, len(keys) + 1):
        if size > capacity * 3 // 4:
            capacity *= 2

    def bucket(key: str) -> int:
        h = java_hash(key) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & (capacity - 1)

    return sorted(keys, key=bucket)


__all__ = ["JSON", "JSONError", "JavaCrash", "parse_object", "string_to_value", "parse_java_double",
           "parse_java_int", "java_int_value", "java_double_str", "java_str", "to_json_text", "quote",
           "java_hash", "hashmap_order", "java_units", "from_units"]
