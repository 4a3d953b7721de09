"""Every test runs with its own config directory and none of the caller's slmcode settings,
as the Rust suites do: nothing is read from or written to the user's files."""

import os

import pytest


@pytest.fixture(autouse=True)
def own_config_dir(tmp_path, monkeypatch):
    for name in list(os.environ):
        if name.startswith("SLMCODE_") and not name.startswith("SLMCODE_E2E_") and name != "SLMCODE_REQUIRE_E2E":
            monkeypatch.delenv(name)
    directory = tmp_path / "config"
    directory.mkdir()
    monkeypatch.setenv("SLMCODE_CONFIG_DIR", str(directory))
    return directory
