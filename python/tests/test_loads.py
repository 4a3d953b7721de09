"""`loads` reads what `json.loads` reads, the same way, and what the repair ladder repairs."""

import json

import pytest

import slmcode

VALID = [
    '{"a": 1, "b": [true, false, null], "c": {"d": "e"}}',
    '[1, -2, 3.5, 1e3, -0.0, 18446744073709551615, -9223372036854775808]',
    '{"text": "caf\\u00e9 \\ud83d\\ude00 \\"quoted\\" \\\\ tab\\t", "ключ": "значение"}',
    '{"dup": 1, "dup": 2, "other": 3}',
    '"a string"',
    "42",
    "null",
    "  [ ]  ",
    "{}",
    "\ufeff{\"bom\": true}",
]


@pytest.mark.parametrize("text", VALID)
def test_valid_json_reads_as_json_loads_reads_it(text):
    assert slmcode.loads(text) == json.loads(text.lstrip("\ufeff"))
    report = slmcode.repair(text)
    assert report.ok and report.rung == "none" and report.rungs == []


def test_member_order_and_types_are_json_loads_own():
    text = '{"z": 1, "a": 2.0, "m": [1, "x"]}'
    value = slmcode.loads(text)
    assert list(value) == ["z", "a", "m"]
    assert [type(item) for item in value.values()] == [int, float, list]


SLOPPY = [
    ('Sure!\n```json\n{"steps": ["read", "write",]}\n```\nDone.', {"steps": ["read", "write"]}),
    ("{'a': 'b', 'ok': True, 'none': None}", {"a": "b", "ok": True, "none": None}),
    ('{"a": 1 // a comment\n}', {"a": 1}),
    ('{a: 1, b: "two"}', {"a": 1, "b": "two"}),
    ('<think>the user wants a list</think>["x", "y"]', ["x", "y"]),
    ('{"a": [1, 2, 3]', {"a": [1, 2, 3]}),
]


@pytest.mark.parametrize(("text", "value"), SLOPPY)
def test_sloppy_answers_are_repaired(text, value):
    assert slmcode.loads(text) == value
    report = slmcode.repair(text)
    assert report.ok and report.rung != "none" and report.rungs


def test_a_schema_coerces_what_it_safely_can():
    schema = {"type": "object", "properties": {"n": {"type": "integer"}, "tags": {"type": "array"}}}
    report = slmcode.repair('{"n": "3", "tags": "one"}', schema)
    assert report.value == {"n": 3, "tags": ["one"]}
    assert report.rung == "coerce"
    assert [(item.pointer, item.kind) for item in report.coercions] == [
        ("/n", "string_to_integer"),
        ("/tags", "wrapped_in_array"),
    ]
    assert report.coercions[0].from_ == '"3"' and report.coercions[0].to == "3"


def test_a_contract_name_is_its_schema():
    answer = '{"goal": "x", "steps": [{"id": "1"}]}'
    by_name = slmcode.repair(answer, "plan")
    by_schema = slmcode.repair(answer, slmcode.contract("plan").schema)
    assert by_name == by_schema
    assert by_name.failure_class == "wrong_shape" and by_name.errors


def test_several_values_keep_the_first_and_count_the_rest():
    report = slmcode.repair('{"a": 1}\n{"a": 2}\n{"a": 3}')
    assert report.value == {"a": 1} and report.dropped == 2


def test_deep_input_is_read_without_recursion_and_refused_past_the_limit():
    depth = 50_000
    value = slmcode.loads("[" * depth + "]" * depth)
    seen = 0
    while value:
        value = value[0]
        seen += 1
    assert seen == depth - 1
    with pytest.raises(slmcode.MalformedError, match="nested too deep"):
        slmcode.loads("[" * 200_000 + "]" * 200_000)


def test_huge_valid_input_reads():
    items = [{"id": index, "name": f"item {index}", "tags": ["a", "b"]} for index in range(100_000)]
    text = json.dumps(items)
    assert slmcode.loads(text) == items


def test_text_that_is_not_a_str_is_a_type_error():
    with pytest.raises(TypeError):
        slmcode.loads(b'{"a": 1}')


@pytest.mark.parametrize(
    "text",
    [
        '{"id": 123456789012345678901234567890}',
        '[-98765432109876543210987654321, 18446744073709551616, 1e30, 2.0e19, 5]',
        '{"s": "12345678901234567890123 in a string", "n": [[-9223372036854775809]]}',
    ],
)
def test_integers_beyond_64_bits_keep_every_digit(text):
    value = slmcode.loads(text)
    assert value == json.loads(text)
    assert json.dumps(value) == json.dumps(json.loads(text))
