"""Agent frameworks through `slmcode serve`, as their users write them: PydanticAI, the OpenAI
Agents SDK and LangChain, each pointed at the proxy (OPENAI_BASE_URL) with a dummy key. Run as
`serve_frameworks.py <case>`: one case per run, so the Rust test (tests/e2e/serve_frameworks.rs)
counts each case's requests in the proxy's log. Prints one JSON line on stdout: the case, what
the framework returned, and how long it took; or when the case raises, the error and what the
case noted on its way, and then the run fails (exit 1) with the traceback on stderr.

Nothing may leave the machine: every connection to a host other than the loopback one raises
before it is made, so a framework that phones home (tracing, telemetry, a tokenizer download)
fails the case instead of reaching the internet."""

import asyncio
import ipaddress
import json
import os
import socket
import sys
import time

BASE_URL = os.environ["OPENAI_BASE_URL"]
API_KEY = os.environ["OPENAI_API_KEY"]

# Each framework's own switches for what it would send elsewhere, before it is imported.
os.environ["OPENAI_AGENTS_DISABLE_TRACING"] = "1"
os.environ["LANGSMITH_TRACING"] = "false"
os.environ["LANGCHAIN_TRACING_V2"] = "false"

_connect = socket.socket.connect
_connect_ex = socket.socket.connect_ex
_getaddrinfo = socket.getaddrinfo


def _loopback(host):
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _refuse_elsewhere(sock, address):
    if sock.family in (socket.AF_INET, socket.AF_INET6) and not _loopback(address[0]):
        raise OSError(f"this test may reach only 127.0.0.1, not {address[0]}")


def _only_loopback_connect(sock, address):
    _refuse_elsewhere(sock, address)
    return _connect(sock, address)


def _only_loopback_connect_ex(sock, address):
    _refuse_elsewhere(sock, address)
    return _connect_ex(sock, address)


def _only_loopback_names(host, *args, **kwargs):
    if host is not None and not _loopback(host if isinstance(host, str) else host.decode()):
        raise OSError(f"this test may reach only 127.0.0.1, not {host}")
    return _getaddrinfo(host, *args, **kwargs)


socket.socket.connect = _only_loopback_connect
socket.socket.connect_ex = _only_loopback_connect_ex
socket.getaddrinfo = _only_loopback_names

import pydantic  # noqa: E402

PERSON_PROMPT = "Name a person and their age."
TOOL_PROMPT = "What does src/main.rs print?"
MAIN_RS = 'fn main() {\n    println!("Hello from slmcode!");\n}\n'
# A framework may go round a tool loop this many times before the case fails.
REQUEST_LIMIT = 5
# What a case noted on its way, reported with the error when it fails.
NOTES = {}


class Person(pydantic.BaseModel):
    name: str = pydantic.Field(max_length=20)
    age: int


def file_text(path):
    # The project has one file, read whatever the path: a 135M model misspells paths
    # (`src/main.jsx`), and the case is about the loop ending, not about spelling.
    return f"src/main.rs (asked for {path}):\n{MAIN_RS}"


def person(value):
    return {"type": type(value).__name__, "value": value.model_dump()}


def pydantic_ai_model():
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    provider = OpenAIProvider(base_url=BASE_URL, api_key=API_KEY)
    return OpenAIChatModel("smollm2", provider=provider)


def pydantic_ai_settings():
    from pydantic_ai.settings import ModelSettings

    return ModelSettings(max_tokens=200, timeout=240)


def pydantic_ai_output(output_type):
    from pydantic_ai import Agent, UsageLimits

    agent = Agent(pydantic_ai_model(), output_type=output_type, retries=0)
    result = agent.run_sync(
        PERSON_PROMPT,
        model_settings=pydantic_ai_settings(),
        usage_limits=UsageLimits(request_limit=REQUEST_LIMIT),
    )
    return {**person(result.output), "requests": result.usage.requests}


def pydantic_ai_tool_output():
    from pydantic_ai import ToolOutput

    return pydantic_ai_output(ToolOutput(Person))


def pydantic_ai_native_output():
    from pydantic_ai import NativeOutput

    return pydantic_ai_output(NativeOutput(Person))


def pydantic_ai_tool_loop():
    """An agent with one function tool and text output: the run must end in a text answer."""
    from pydantic_ai import Agent, UsageLimits

    agent = Agent(pydantic_ai_model(), output_type=str)
    calls = []

    @agent.tool_plain
    def read_file(path: str) -> str:
        """Read a file of the project."""
        calls.append(path)
        return file_text(path)

    # What the model asked for, in the report also when the run fails.
    NOTES["tool_calls"] = calls
    result = agent.run_sync(
        TOOL_PROMPT,
        model_settings=pydantic_ai_settings(),
        usage_limits=UsageLimits(request_limit=REQUEST_LIMIT),
    )
    return {
        "type": type(result.output).__name__,
        "text": result.output,
        "requests": result.usage.requests,
        "tool_calls": calls,
    }


def openai_agents_output():
    from agents import Agent, ModelSettings, OpenAIChatCompletionsModel, Runner
    from agents import set_tracing_disabled
    from openai import AsyncOpenAI

    set_tracing_disabled(True)
    client = AsyncOpenAI(base_url=BASE_URL, api_key=API_KEY, timeout=240, max_retries=0)
    agent = Agent(
        name="people",
        instructions="You answer with a person.",
        model=OpenAIChatCompletionsModel(model="smollm2", openai_client=client),
        model_settings=ModelSettings(max_tokens=200),
        output_type=Person,
    )
    result = asyncio.run(Runner.run(agent, PERSON_PROMPT, max_turns=REQUEST_LIMIT))
    return {**person(result.final_output), "requests": len(result.raw_responses)}


def langchain_structured(method):
    from langchain_openai import ChatOpenAI

    model = ChatOpenAI(
        model="smollm2",
        base_url=BASE_URL,
        api_key=API_KEY,
        max_tokens=200,
        timeout=240,
        max_retries=0,
    )
    value = model.with_structured_output(Person, method=method).invoke(PERSON_PROMPT)
    return person(value)


def langchain_json_schema():
    return langchain_structured("json_schema")


def langchain_function_calling():
    return langchain_structured("function_calling")


CASES = {
    "pydantic_ai_tool_output": pydantic_ai_tool_output,
    "pydantic_ai_native_output": pydantic_ai_native_output,
    "pydantic_ai_tool_loop": pydantic_ai_tool_loop,
    "openai_agents_output": openai_agents_output,
    "langchain_json_schema": langchain_json_schema,
    "langchain_function_calling": langchain_function_calling,
}


def main():
    case = sys.argv[1]
    started = time.monotonic()
    try:
        report = CASES[case]()
    except Exception as error:
        # One line for the Rust test to show; the traceback follows on stderr, and exit 1.
        failed = {"case": case, "error": f"{type(error).__name__}: {error}", **NOTES}
        failed["seconds"] = round(time.monotonic() - started, 1)
        print(json.dumps(failed), flush=True)
        raise
    report["case"] = case
    report["seconds"] = round(time.monotonic() - started, 1)
    json.dump(report, sys.stdout)
    print()


if __name__ == "__main__":
    main()
