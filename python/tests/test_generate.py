"""`generate` against the real llama.cpp server with its random-weight model (`.ci/run` starts
it and exports SLMCODE_E2E_ENDPOINT): what the server's constrained decoding makes comes back
valid, and an unconstrained answer fails cleanly with the call's meta and the raw text."""

import os

import pytest

import slmcode


def endpoint():
    found = os.environ.get("SLMCODE_E2E_ENDPOINT", "").strip()
    if not found:
        message = "SLMCODE_E2E_ENDPOINT is not set: start the tiny model with tests/real-engine/start.sh"
        if os.environ.get("SLMCODE_REQUIRE_E2E") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return found.rstrip("/")


def client(**settings):
    return slmcode.Client(
        endpoint=endpoint(),
        model=os.environ.get("SLMCODE_E2E_MODEL"),
        provider="llamacpp",
        temperature=1,
        **settings,
    )


SMALL = {
    "type": "object",
    "properties": {"title": {"type": "string", "maxLength": 40}, "done": {"type": "boolean"}},
    "required": ["title", "done"],
    "additionalProperties": False,
}


@pytest.mark.parametrize("mechanism", ["json_schema", "gbnf_grammar"])
def test_an_enforcing_mechanism_gives_a_valid_value(mechanism):
    generated = client(max_tokens=256).generate(
        "Carry out the task: add a cache to the HTTP client.", schema=SMALL, mechanism=mechanism, seed=1
    )
    slmcode.validate(generated.value, SMALL)
    assert generated.meta["mechanism"] == mechanism
    assert generated.meta["attempts"] >= 1


def test_a_contract_by_name():
    generated = client(max_tokens=1536).generate(
        "Carry out the task: add a cache to the HTTP client.", schema="scope_judge", mechanism="json_schema", seed=2
    )
    slmcode.validate(generated.value, "scope_judge")


def test_an_unconstrained_answer_fails_with_its_meta_and_raw_text():
    # The random-weight model never writes JSON by itself.
    with pytest.raises(slmcode.Error) as raised:
        client(max_tokens=64, reask=0).generate("Say hello.", schema=SMALL, mechanism="prompt_only", seed=1)
    failure = raised.value
    assert isinstance(
        failure, (slmcode.ProseError, slmcode.MalformedError, slmcode.TruncatedError, slmcode.SchemaViolation, slmcode.RepetitionError)
    )
    assert failure.failure_class
    assert failure.meta["mechanism"] == "prompt_only"
    assert failure.meta["attempts"] == 1
    assert failure.raw is not None
