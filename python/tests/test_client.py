"""`Client` takes its settings as the CLI does: given ones over the environment over the
config file over the defaults; a failed call raises with the call's meta."""

import http.server
import json
import threading

import pytest

import slmcode


def test_settings_come_from_arguments_environment_and_file(own_config_dir, monkeypatch):
    (own_config_dir / "config.toml").write_text('model = "from-file"\nreask = 3\n')
    monkeypatch.setenv("SLMCODE_REASK", "2")
    client = slmcode.Client(endpoint="http://127.0.0.1:8080/v1", provider="llamacpp", max_tokens=100)
    settings = client.settings
    assert settings["model"] == "from-file"
    assert settings["reask"] == 2
    assert settings["max_tokens"] == 100
    assert settings["endpoint"] == "http://127.0.0.1:8080/v1"
    assert "api_key" not in settings


def test_a_bad_setting_is_a_config_error():
    with pytest.raises(slmcode.ConfigError, match="max_token"):
        slmcode.Client(max_token=100)
    with pytest.raises(slmcode.ConfigError):
        slmcode.Client(reask="many")


def test_no_endpoint_is_a_config_error():
    with pytest.raises(slmcode.ConfigError, match="endpoint"):
        slmcode.generate("hello", schema="plan")


def test_an_empty_prompt_sends_nothing():
    with pytest.raises(slmcode.RequestError, match="empty"):
        slmcode.generate("  ", schema="plan", endpoint="http://127.0.0.1:1/v1", provider="llamacpp")


def test_an_endpoint_failure_carries_the_meta():
    with pytest.raises(slmcode.EndpointError) as raised:
        # Nothing listens on port 1 (the refused connection is retried for 2 s).
        slmcode.generate(
            "hello", schema="plan", endpoint="http://127.0.0.1:1/v1", provider="llamacpp",
            structured_decoding="off",
        )
    error = raised.value
    assert error.error_class and error.status is None
    assert error.meta["mechanism"] == "prompt_only"
    assert error.meta["requests"] >= 1


class Answering(http.server.BaseHTTPRequestHandler):
    """A chat endpoint that answers every request with the same sloppy JSON, streamed when
    asked to be."""

    answer = "Here it is: {'n': '3',}"

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if body.get("stream"):
            chunks = [
                {"choices": [{"index": 0, "delta": {"content": self.answer}, "finish_reason": None}]},
                {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
            ]
            payload = "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks) + "data: [DONE]\n\n"
            kind = "text/event-stream"
        else:
            message = {"role": "assistant", "content": self.answer}
            payload = json.dumps({"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})
            kind = "application/json"
        data = payload.encode()
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def test_the_call_runs_without_the_gil():
    # The endpoint is a Python thread of this process: it can answer only if the call
    # released the GIL while it waits (held, the call would wait out its deadline).
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Answering)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
        client = slmcode.Client(
            endpoint=f"http://127.0.0.1:{server.server_port}/v1",
            provider="llamacpp",
            structured_decoding="off",
            call_timeout_s=20,
        )
        generated = client.generate("Give n.", schema=schema)
        assert generated.value == {"n": 3}
        assert generated.meta["mechanism"] == "prompt_only"
        assert generated.meta["repair_rung"] == "coerce"
        # A second call through the same client reuses what the first negotiated.
        assert client.generate("Again.", schema=schema).value == {"n": 3}
    finally:
        server.shutdown()


def test_threads_call_through_one_client_at_once():
    # Four threads start on a client that has not negotiated yet: one negotiates while the
    # others wait for it, none holding the GIL the endpoint's thread needs.
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Answering)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
        client = slmcode.Client(
            endpoint=f"http://127.0.0.1:{server.server_port}/v1",
            provider="llamacpp",
            structured_decoding="off",
            call_timeout_s=20,
        )
        values = []
        threads = [
            threading.Thread(target=lambda: values.append(client.generate("Give n.", schema=schema).value))
            for _ in range(4)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert values == [{"n": 3}] * 4
    finally:
        server.shutdown()
