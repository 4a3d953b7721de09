"""Real clients through `slmcode serve`: the OpenAI Python SDK and instructor, pointed at the
proxy with OPENAI_BASE_URL, each asking what a harness asks. Prints one JSON report on stdout;
the Rust test (tests/e2e/serve_clients.rs) checks it. Any exception fails the run (exit 1)."""

import json
import sys

import instructor
import openai
import pydantic

PERSON = {
    "type": "object",
    "properties": {"name": {"type": "string", "maxLength": 20}, "age": {"type": "integer"}},
    "required": ["name", "age"],
    "additionalProperties": False,
}

READ_FILE = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Read a file of the project.",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string", "maxLength": 20}},
            "required": ["path"],
            "additionalProperties": False,
        },
    },
}


class Person(pydantic.BaseModel):
    name: str = pydantic.Field(max_length=20)
    age: int


def main():
    # No retries: a failure must show, not be hidden by a second try.
    client = openai.OpenAI(timeout=240, max_retries=0)
    messages = [{"role": "user", "content": "Name a person and their age."}]
    response_format = {
        "type": "json_schema",
        "json_schema": {"name": "person", "schema": PERSON, "strict": True},
    }
    report = {"openai": openai.__version__, "instructor": instructor.__version__}

    raw = client.chat.completions.with_raw_response.create(
        model="any", messages=messages, response_format=response_format, max_tokens=200
    )
    whole = raw.parse()
    report["json_schema"] = {
        "content": whole.choices[0].message.content,
        "finish_reason": whole.choices[0].finish_reason,
        "mechanism": raw.headers.get("x-slmcode-mechanism"),
        "completion_tokens": whole.usage.completion_tokens,
    }

    stream = client.chat.completions.create(
        model="any",
        messages=messages,
        response_format=response_format,
        max_tokens=200,
        stream=True,
        stream_options={"include_usage": True},
    )
    pieces, finish, usage = [], None, None
    for chunk in stream:
        if chunk.usage is not None:
            usage = chunk.usage.completion_tokens
        for choice in chunk.choices:
            if choice.delta.content:
                pieces.append(choice.delta.content)
            finish = choice.finish_reason or finish
    report["json_schema_stream"] = {
        "content": "".join(pieces),
        "finish_reason": finish,
        "completion_tokens": usage,
    }

    tools = client.chat.completions.create(
        model="any",
        messages=[{"role": "user", "content": "Read the file Cargo.toml."}],
        tools=[READ_FILE],
        tool_choice="required",
        max_tokens=200,
    )
    call = tools.choices[0].message.tool_calls[0]
    report["tool_call"] = {
        "id": call.id,
        "name": call.function.name,
        "arguments": call.function.arguments,
        "finish_reason": tools.choices[0].finish_reason,
    }

    # llama.cpp's own field, relayed as it came: the random model may not stop at once.
    plain = client.chat.completions.create(
        model="any",
        messages=[{"role": "user", "content": "Say hello."}],
        max_tokens=24,
        stream=True,
        extra_body={"ignore_eos": True},
    )
    chunks, text, finish = 0, [], None
    for chunk in plain:
        chunks += 1
        for choice in chunk.choices:
            if choice.delta.content:
                text.append(choice.delta.content)
            finish = choice.finish_reason or finish
    report["plain_stream"] = {"chunks": chunks, "text": "".join(text), "finish_reason": finish}

    for mode in ("TOOLS", "JSON_SCHEMA"):
        patched = instructor.from_openai(
            openai.OpenAI(timeout=240, max_retries=0), mode=getattr(instructor.Mode, mode)
        )
        person = patched.chat.completions.create(
            model="any",
            messages=messages,
            response_model=Person,
            max_tokens=200,
            max_retries=0,
        )
        report["instructor_" + mode.lower()] = {
            "type": type(person).__name__,
            "value": person.model_dump(),
        }

    json.dump(report, sys.stdout)


if __name__ == "__main__":
    main()
