"""The documentation's examples run: the module's doctests and the README's Python quick start."""

import doctest
import pathlib
import re

import slmcode

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def test_the_doctests_pass():
    failed, attempted = doctest.testmod(slmcode, extraglobs={"slmcode": slmcode})
    assert attempted >= 15
    assert failed == 0


def python_blocks():
    text = README.read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)


def test_the_readme_quick_start_runs(capsys):
    blocks = python_blocks()
    assert blocks, "README.md has no python block"
    for block in blocks:
        exec(compile(block, str(README), "exec"), {})
    # What the quick start's comments say it prints.
    printed = capsys.readouterr().out
    for claim in re.findall(r"# prints (.*)$", "\n".join(blocks), flags=re.MULTILINE):
        assert claim in printed, claim
