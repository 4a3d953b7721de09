"""Each failure class raises its own exception, under `slmcode.Error`, with its evidence."""

import pytest

import slmcode

PLAN_LIKE = {
    "type": "object",
    "properties": {"title": {"type": "string"}, "steps": {"type": "array", "items": {"type": "string"}}},
    "required": ["title", "steps"],
}


def test_every_error_is_an_error():
    for name in [
        "ProseError",
        "TruncatedError",
        "MalformedError",
        "RepetitionError",
        "SchemaViolation",
        "SchemaError",
        "ConfigError",
        "RequestError",
        "EndpointError",
    ]:
        assert issubclass(getattr(slmcode, name), slmcode.Error), name


def test_truncated_carries_the_complete_members_and_what_is_missing():
    with pytest.raises(slmcode.TruncatedError) as raised:
        slmcode.loads('{"title": "Add a flag", "steps": ["read", "wri', PLAN_LIKE)
    cut = raised.value
    assert cut.failure_class == "truncated"
    assert cut.partial == {"title": "Add a flag"}
    assert cut.missing_required == ["steps"]
    assert cut.offset is not None
    assert "cut off" in str(cut) or "truncated" in str(cut)


def test_a_number_at_the_very_end_may_go_on():
    with pytest.raises(slmcode.TruncatedError):
        slmcode.loads("[1, 2, 3")


def test_prose_and_empty_are_prose_errors():
    with pytest.raises(slmcode.ProseError) as raised:
        slmcode.loads("I cannot help with that.")
    assert raised.value.failure_class == "prose"
    with pytest.raises(slmcode.ProseError) as raised:
        slmcode.loads("   ")
    assert raised.value.failure_class == "empty"


def test_malformed_is_json_no_rung_repairs():
    with pytest.raises(slmcode.MalformedError) as raised:
        slmcode.loads('{"a": ]')
    assert raised.value.failure_class == "malformed"


def test_a_loop_is_a_repetition_error_not_a_truncation():
    # Cut off inside a list that only repeats itself: more room would only lengthen it.
    looping = '{"ids": [' + ", ".join(["1"] * 5000)
    with pytest.raises(slmcode.RepetitionError) as raised:
        slmcode.loads(looping)
    assert raised.value.repetition["kind"]
    assert not isinstance(raised.value, slmcode.TruncatedError)


def test_a_schema_violation_names_every_error_by_its_pointer():
    with pytest.raises(slmcode.SchemaViolation) as raised:
        slmcode.loads('{"title": {"a": 1}, "steps": ["a", {"b": 2}]}', PLAN_LIKE)
    wrong = raised.value
    assert wrong.failure_class == "wrong_shape"
    assert sorted(error.pointer for error in wrong.errors) == ["/steps/1", "/title"]
    assert wrong.value == {"title": {"a": 1}, "steps": ["a", {"b": 2}]}


def test_repair_reports_failures_instead_of_raising():
    report = slmcode.repair('{"title": {"a": 1}, "steps": []}', PLAN_LIKE)
    assert not report.ok and report.failure_class == "wrong_shape"
    assert [error.pointer for error in report.errors] == ["/title"]
    report = slmcode.repair('{"title": "x", "steps": ["a"]}', PLAN_LIKE, finish_reason_length=True)
    assert not report.ok and report.failure_class == "truncated"
    assert report.partial == {"title": "x", "steps": ["a"]}


def test_validate():
    assert slmcode.validate({"title": "x", "steps": []}, PLAN_LIKE) is None
    with pytest.raises(slmcode.SchemaViolation) as raised:
        slmcode.validate({"steps": "read"}, PLAN_LIKE)
    assert sorted(error.pointer for error in raised.value.errors) == ["", "/steps"]
    with pytest.raises(slmcode.SchemaError):
        slmcode.validate({}, {"type": "no such type"})
    with pytest.raises(TypeError, match="/a/0"):
        slmcode.validate({"a": [object()]}, {})
    with pytest.raises(ValueError, match="not finite"):
        slmcode.validate({"a": float("nan")}, {})
    with pytest.raises(TypeError, match="not a str"):
        slmcode.validate({1: "a"}, {})


def test_contracts():
    plan = slmcode.contract("plan")
    assert plan.name == "plan" and plan.title and plan.prompt
    assert plan.schema["type"] == "object"
    assert "root ::=" in plan.grammar
    assert set(slmcode.contracts()) >= {"plan", "scope_judge"}
    with pytest.raises(slmcode.SchemaError, match="plan"):
        slmcode.contract("plna")
    with pytest.raises(slmcode.SchemaError):
        slmcode.loads("{}", "no_such_contract")
