"""The server's reading of client lines (R-PROTO, R-PROTO-JSON): org.json's lenient syntax and exact error texts,
the handshake, loadout and action phases of a connection, and Java's line ends."""

from __future__ import annotations

import pytest

from locm.engine.skyport.orgjson import (
    JSONError, JavaCrash, hashmap_order, java_double_str, java_int_value, java_str, parse_object, to_json_text,
)
from locm.engine.skyport.protocol import CONNECTED, DEAD, PLAYING, ClientSession, java_lines


@pytest.mark.parametrize("line, message", [
    ("", "A JSONObject text must begin with '{' at 1 [character 2 line 1]"),
    ("this is not json", "A JSONObject text must begin with '{' at 1 [character 2 line 1]"),
    ("[]", "A JSONObject text must begin with '{' at 1 [character 2 line 1]"),
    ('{"message":"action","type":"move","direction":"up"', "Expected a ',' or '}' at 51 [character 52 line 1]"),
    ('{"message":"action","type":"mine","type":"mine"}', 'Duplicate key "type"'),
    ('{"a" 1}', "Expected a ':' after a key at 6 [character 7 line 1]"),
    ('{"a":"x\\q"}', "Illegal escape. at 9 [character 10 line 1]"),
    ('{"a":"x', "Unterminated string at 8 [character 9 line 1]"),
    ('{"a":}', "Missing value at 5 [character 6 line 1]"),
    ('{"a":[1;2 x}', "Expected a ',' or ']' at 12 [character 13 line 1]"),
    ('{"a":1', "Expected a ',' or '}' at 7 [character 8 line 1]"),
])
def test_org_json_errors_are_the_servers(line, message):
    """R-PROTO-JSON: the first five are texts the 2013 server sent in the recorded games."""
    with pytest.raises(JSONError) as err:
        parse_object(line)
    assert str(err.value) == message


@pytest.mark.parametrize("line, value", [
    ("{message:action,type:mine}", {"message": "action", "type": "mine"}),
    ("{'message':'action','type':'move','direction':'up'}", {"message": "action", "type": "move", "direction": "up"}),
    ('{"type":"mine"} trailing garbage', {"type": "mine"}),
    ('{"a"=1;"b"=>2,}', {"a": 1, "b": 2}),
    ('{"a":[1,,2],"b":null,"c":TRUE,"d":1.50,"e":9999999999,"f":0x1F,"g":"\\u0041"}',
     {"a": [1, None, 2], "b": None, "c": True, "d": 1.5, "e": 9999999999, "f": "0x1F", "g": "A"}),
    ('{"a":action item}', {"a": "action item"}),
    ('{"a":[1 2]}', {"a": ["1 2"]}),
    ("{1: 2.0}", {"1": 2.0}),
])
def test_org_json_is_lenient(line, value):
    """R-PROTO-JSON: what org.json accepts (and so counts as a real action)."""
    assert parse_object(line) == value


def test_a_bad_unicode_escape_stops_the_reader_for_good():
    """R-PROTO-JSON: org.json lets a NumberFormatException through: the server's reader thread dies."""
    with pytest.raises(JavaCrash):
        parse_object('{"a":"\\uZZZZ"}')
    session = ClientSession()
    assert session.feed('{"message":"connect","revision":1,"name":"a\\uZZZZ"}').replies == []
    assert session.phase == DEAD
    assert session.feed('{"message":"connect","revision":1,"name":"alpha"}').replies == []


def test_java_values_as_the_server_prints_them():
    assert [java_double_str(x) for x in (1.0, 0.001, 1e7, 1.25e-4, 123.456, -2.5)] == [
        "1.0", "0.001", "1.0E7", "1.25E-4", "123.456", "-2.5"]
    assert [java_str(v) for v in (None, True, 5, 2.0, "x", [1, "a"])] == ["null", "true", "5", "2.0", "x", '[1,"a"]']
    assert [java_int_value(v) for v in (1, 4294967297, 1.9, "7", "x", True)] == [1, 1, 1, 7, None, None]


def test_objects_are_written_in_java_hash_map_order():
    """The server's re-broadcast of a laser shot, as recorded (the oracle's README shows it)."""
    sent = {"message": "action", "type": "laser", "direction": "up", "from": "p0-chaos", "start": "2, 18",
            "stop": "0, 16"}
    assert to_json_text(sent) == ('{"stop":"0, 16","start":"2, 18","from":"p0-chaos","message":"action",'
                                  '"type":"laser","direction":"up"}')
    assert hashmap_order(["b", "a"]) == ["a", "b"]


def test_a_connection_goes_handshake_loadout_actions():
    """R-PROTO: the replies of the server's reader, in its order of checks."""
    s = ClientSession()
    said = [s.feed(line).replies for line in (
        '{"message":"loadout"}',
        '{"message":"connect","revision":2,"name":"alpha"}',
        '{"message":"connect","revision":1}',
        '{"message":"connect","revision":1,"name":"ab"}',
        '{"message":"connect","revision":1,"name":"bad name!"}',
        '{"message":"connect","revision":"1","name":"alpha"}',
    )]
    assert said == [
        [{"error": "Expected 'connect' handshake, but got 'loadout' key"}],
        [{"error": "Wrong protocol revision: supporting 1, but got 2"}],
        [{"error": 'Invalid or incomplete packet: JSONObject["name"] not found.'}],
        [{"error": "Username too short: needs to be 3 characters or longer."}],
        [{"error": "Username contains invalid characters. May only contain a-z, A-Z, 0-9, -, _, +."}],
        [CONNECTED],
    ]
    assert s.name == "alpha"
    said = [s.feed(line).replies for line in (
        '{"message":"action","type":"move"}',
        '{"message":"loadout","primary-weapon":"droid"}',
        '{"message":"loadout","primary-weapon":"bfg","secondary-weapon":"laser"}',
        '{"message":"loadout","primary-weapon":"laser","secondary-weapon":"laser"}',
    )]
    assert said == [
        [{"error": "Expected 'loadout', but got 'action' key"}],
        [{"error": 'Invalid or incomplete packet: JSONObject["secondary-weapon"] not found.'}],
        [{"error": "Invalid primary weapon: 'bfg'"}],
        [{"error": "Invalid loadout: Can't have the same weapon twice."}],
    ]
    reading = s.feed('{"message":"loadout","primary-weapon":"laser","secondary-weapon":"droid"}')
    assert reading.loadout == ("laser", "droid") and reading.replies == [] and s.phase == PLAYING
    said = [s.feed(line).replies for line in ('{"message":"endturn"}', "{}", '{"message":null}')]
    assert said == [[{"error": "Unexpected message, got 'endturn' but expected 'action'"}],
                    [{"error": "Invalid or incomplete packet"}],
                    [{"error": "Unexpected message, got 'null' but expected 'action'"}]]
    reading = s.feed("{message:action,type:mine}")
    assert reading.action == {"message": "action", "type": "mine"} and reading.replies == []


def test_java_reads_lines_ended_by_cr_lf_or_both():
    assert java_lines("a\r\nb\rc\nd") == ["a", "b", "c", "d"]
    assert java_lines("a\n\nb") == ["a", "", "b"]


def test_deep_nesting_stops_the_reader_instead_of_the_checker():
    with pytest.raises(JavaCrash):
        parse_object('{"a":' * 5000)
    assert parse_object('{"a":' * 100 + "1" + "}" * 100)
