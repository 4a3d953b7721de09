"""The wheel installs the `slmcode` command: the CLI's own binary, beside this Python."""

import json
import os
import pathlib
import subprocess
import sys

import slmcode


def command() -> pathlib.Path:
    # pip puts the wheel's scripts in the environment's bin/ (Scripts\\ on Windows).
    folder = pathlib.Path(sys.prefix) / ("Scripts" if os.name == "nt" else "bin")
    return folder / ("slmcode.exe" if os.name == "nt" else "slmcode")


def run(*args, stdin=""):
    return subprocess.run(
        [str(command()), *args], input=stdin, capture_output=True, text=True, check=False
    )


def test_the_command_is_the_cli_binary_of_the_same_version():
    path = command()
    assert path.is_file() and os.access(path, os.X_OK)
    # A native executable, not a Python script that wraps one.
    assert not path.read_bytes().startswith(b"#!")
    done = run("--version")
    assert done.returncode == 0
    assert done.stdout.startswith(f"slmcode {slmcode.__version__}")


def test_the_command_repairs_with_its_exit_codes():
    done = run("repair", "--json", stdin='Sure!\n```json\n{"a": [1, 2,]}\n```')
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["value"] == {"a": [1, 2]} and report["rung"] == "trailing_comma"
    # The report the module gives is the command's.
    module = slmcode.repair('Sure!\n```json\n{"a": [1, 2,]}\n```')
    assert (module.value, module.rung, module.rungs) == (report["value"], report["rung"], report["rungs"])
    done = run("repair", stdin='{"a": [1, 2')
    assert done.returncode == 4


def test_the_command_reads_the_same_config_directory(own_config_dir):
    done = run("config", "set", "reask", "2")
    assert done.returncode == 0, done.stderr
    assert (own_config_dir / "config.toml").is_file()
    assert slmcode.Client().settings["reask"] == 2
