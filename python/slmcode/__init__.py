"""slmcode for Python: structured output that a program can trust, from small and local
language models.

The same core as the ``slmcode`` command (which this package also installs): the repair
ladder, schema validation, the shipped contracts and the structured call path, in process.

>>> import slmcode
>>> slmcode.loads('Sure! ```json\\n{"files": ["a.py", "b.py",]}\\n```')
{'files': ['a.py', 'b.py']}
>>> try:
...     slmcode.loads('{"files": ["a.py", "b.p')
... except slmcode.TruncatedError as cut:
...     print(cut.failure_class, cut.partial)
truncated {}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from . import _native
from ._errors import (
    ConfigError,
    EndpointError,
    Error,
    MalformedError,
    ProseError,
    RepetitionError,
    RequestError,
    SchemaError,
    SchemaViolation,
    TruncatedError,
    Violation,
)

__version__: str = _native.__version__

__all__ = [
    "Client",
    "Coercion",
    "ConfigError",
    "Contract",
    "EndpointError",
    "Error",
    "Generated",
    "MalformedError",
    "ProseError",
    "RepairReport",
    "RepetitionError",
    "RequestError",
    "Schema",
    "SchemaError",
    "SchemaViolation",
    "ToolCall",
    "TruncatedError",
    "Violation",
    "contract",
    "contracts",
    "generate",
    "loads",
    "repair",
    "validate",
]

#: A schema argument: a shipped contract's name (``"plan"``) or a JSON Schema as a dict.
Schema = Union[str, Dict[str, Any]]


@dataclass(frozen=True)
class Coercion:
    """One change the ``coerce`` rung made to fit the schema: where (a JSON pointer), which
    kind (``string_to_integer``, ...), and the value before and after as compact JSON."""

    pointer: str
    kind: str
    from_: str
    to: str


@dataclass(frozen=True)
class RepairReport:
    """What :func:`repair` found, on success and on failure alike (the shape of
    ``slmcode repair --json``).

    On success ``ok`` is true, ``value`` holds the value (valid against the schema when one
    was given) and ``rung`` names the first rung of the repair ladder after which it parsed
    (``"none"`` when it was valid JSON as it stood). On failure ``failure_class`` says why
    (``empty``, ``prose``, ``truncated``, ``malformed``, ``wrong_shape``, ``repetition``),
    with the evidence: ``errors`` for the wrong shape, ``partial`` and ``missing_required``
    for a truncated object.
    """

    ok: bool
    value: Any = None
    rung: Optional[str] = None
    rungs: List[str] = field(default_factory=list)
    coercions: List[Coercion] = field(default_factory=list)
    dropped: int = 0
    failure_class: Optional[str] = None
    message: Optional[str] = None
    offset: Optional[int] = None
    errors: List[Violation] = field(default_factory=list)
    partial: Optional[Dict[str, Any]] = None
    missing_required: List[str] = field(default_factory=list)
    repetition: Optional[Dict[str, Any]] = None


@dataclass(frozen=True)
class Contract:
    """A shipped contract: its JSON Schema, the prompt that asks for it, and the GBNF grammar
    derived from the schema (llama.cpp syntax, start rule ``root``)."""

    name: str
    title: str
    description: str
    strict: bool
    schema: Dict[str, Any]
    prompt: str
    grammar: str


@dataclass(frozen=True)
class ToolCall:
    """A tool call the model made: the id, the tool's name, and the arguments (valid
    against the tool's parameters)."""

    id: str
    name: str
    arguments: Any


@dataclass(frozen=True)
class Generated:
    """A structured call's answer: the value (valid against the schema), or for a tool turn
    the tool calls and any text beside them; ``meta`` says how it was obtained (mechanism,
    demotions, repair rung, re-asks, tokens), as ``slmcode generate --json`` prints it."""

    value: Any
    meta: Dict[str, Any]
    tool_calls: List[ToolCall] = field(default_factory=list)
    content: Optional[str] = None


def repair(
    text: str, schema: Optional[Schema] = None, *, finish_reason_length: bool = False
) -> RepairReport:
    """Repairs a model's answer into a JSON value, validated against ``schema`` (a contract's
    name or a dict) when one is given, and reports how, or why it cannot. Never raises for
    the text: the failure is in the report.

    >>> report = slmcode.repair("```json\\n{'n': '3', 'done': True,}\\n```",
    ...                         {"type": "object", "properties": {"n": {"type": "integer"}}})
    >>> report.ok, report.value, report.rung
    (True, {'n': 3, 'done': True}, 'coerce')
    >>> report.rungs
    ['fence', 'trailing_comma', 'quotes', 'python_bools', 'coerce']
    >>> report.coercions[0].kind
    'string_to_integer'
    >>> cut = slmcode.repair('{"title": "Add a flag", "steps": ["read", "wri')
    >>> cut.ok, cut.failure_class, cut.partial
    (False, 'truncated', {'title': 'Add a flag'})

    ``finish_reason_length=True`` says the server stopped the model at its token budget:
    whatever the text looks like, it is then truncated.
    """
    found = _native.repair(text, schema, finish_reason_length)
    coercions = [_coercion(item) for item in found.pop("coercions", [])]
    errors = [Violation(item["pointer"], item["message"]) for item in found.pop("errors", [])]
    return RepairReport(coercions=coercions, errors=errors, **found)


def loads(text: str, schema: Optional[Schema] = None) -> Any:
    """Reads a model's answer like ``json.loads``, repairing what the repair ladder repairs
    (fences, prose around the JSON, trailing commas, single quotes, comments, Python literals,
    missing closers after a complete value, ...), and validating against ``schema`` when one is
    given (coercing what it safely can: ``"3"`` to ``3`` where an integer is asked for).

    Raises :class:`ProseError`, :class:`TruncatedError`, :class:`MalformedError`,
    :class:`RepetitionError` or :class:`SchemaViolation`, all :class:`Error`.

    >>> slmcode.loads("{'steps': ['read', 'write'], 'done': False}")
    {'steps': ['read', 'write'], 'done': False}
    >>> try:
    ...     slmcode.loads('{"n": "three"}', {"type": "object", "properties": {"n": {"type": "integer"}}})
    ... except slmcode.SchemaViolation as wrong:
    ...     print([(error.pointer, error.message) for error in wrong.errors])
    [('/n', '"three" is not of type "integer"')]

    Valid JSON with no schema is read straight into Python objects, as fast as ``json.loads``
    reads it. Integers beyond 64 bits are read as floats.
    """
    return _native.loads(text, schema)


def validate(value: Any, schema: Schema) -> None:
    """Checks ``value`` against ``schema`` (a contract's name or a dict, any JSON Schema draft
    the validator knows); raises :class:`SchemaViolation` naming every violation by its JSON
    pointer, or :class:`SchemaError` when the schema does not compile.

    >>> slmcode.validate({"n": 3}, {"type": "object", "properties": {"n": {"type": "integer"}}})
    >>> try:
    ...     slmcode.validate({"steps": "read"}, "plan")
    ... except slmcode.SchemaViolation as wrong:
    ...     print(sorted(error.pointer for error in wrong.errors))
    ['', '/steps']
    """
    _native.validate(value, schema)


def contract(name: str) -> Contract:
    """A shipped contract by name (:func:`contracts` lists them); raises :class:`SchemaError`
    for another name, suggesting the nearest.

    >>> plan = slmcode.contract("plan")
    >>> plan.schema["type"], plan.grammar.startswith("root ::=")
    ('object', True)
    """
    return Contract(**_native.contract(name))


def contracts() -> List[str]:
    """The names of the shipped contracts.

    >>> "plan" in slmcode.contracts()
    True
    """
    return list(_native.contracts())


class Client:
    """Settings for structured calls, resolved as the ``slmcode`` command resolves them: the
    ones given here over the environment (``SLMCODE_ENDPOINT``, ...) over the config file
    (``slmcode config``) over the defaults. Any setting ``slmcode config`` knows may be given,
    by the same name (``max_tokens=512``, ``reask=2``, ``call_timeout_s=30``,
    ``structured_decoding="off"``, ...).

    Calls through one client share what it learned about the endpoint: the first call
    negotiates the strongest mechanism the endpoint supports (a probe, unless the capabilities
    cache knows it) and later calls reuse it. The GIL is released for the whole call, so
    threads may call through one client at once.

    >>> client = slmcode.Client(endpoint="http://127.0.0.1:8080/v1", provider="llamacpp", reask=1)
    >>> client.settings["reask"], client.settings["endpoint"]
    (1, 'http://127.0.0.1:8080/v1')
    """

    def __init__(
        self,
        *,
        endpoint: Optional[str] = None,
        model: Optional[str] = None,
        provider: Optional[str] = None,
        **settings: Any,
    ) -> None:
        given = dict(settings, endpoint=endpoint, model=model, provider=provider)
        self._native = _native.Client(
            {name: _setting_text(value) for name, value in given.items() if value is not None}
        )

    @property
    def settings(self) -> Dict[str, Any]:
        """The settings in effect, by name (the API key's value is never shown)."""
        return dict(self._native.settings)

    @property
    def warnings(self) -> List[str]:
        """What resolving the settings warned about."""
        return list(self._native.warnings)

    def generate(
        self,
        prompt: str,
        *,
        schema: Optional[Schema] = None,
        tools: Optional[Union[Sequence[Any], Mapping[str, Any]]] = None,
        tool_choice: Optional[str] = None,
        system: Optional[str] = None,
        mechanism: Optional[str] = None,
        seed: Optional[int] = None,
    ) -> Generated:
        """Asks the endpoint for an answer that satisfies ``schema`` (a contract's name or a
        dict), on the structured call path ``slmcode generate`` runs: the strongest constraint
        the endpoint supports, repair, validation, re-asks matched to the failure.

        With ``tools`` (an OpenAI ``tools`` list, a request body with ``tools``, or Anthropic
        tools) the answer is a tool call (``tool_choice``: ``required``, ``auto``, ``none`` or
        a tool's name; by default a call without a schema, a call or an answer with one).

        Raises the answer's failure as :class:`ProseError`, :class:`TruncatedError`,
        :class:`MalformedError`, :class:`RepetitionError` or :class:`SchemaViolation` with the
        call's ``meta`` and the last answer's ``raw`` text; :class:`EndpointError` when the
        endpoint failed or the deadline passed.
        """
        found = self._native.generate(
            prompt, schema, tools, tool_choice, system, mechanism, seed
        )
        calls = [
            ToolCall(call["id"], call["name"], call["arguments"]) for call in found["tool_calls"]
        ]
        return Generated(
            value=found["value"], meta=found["meta"], tool_calls=calls, content=found["content"]
        )


def generate(
    prompt: str,
    *,
    schema: Optional[Schema] = None,
    tools: Optional[Union[Sequence[Any], Mapping[str, Any]]] = None,
    tool_choice: Optional[str] = None,
    system: Optional[str] = None,
    endpoint: Optional[str] = None,
    model: Optional[str] = None,
    mechanism: Optional[str] = None,
    seed: Optional[int] = None,
    **settings: Any,
) -> Generated:
    """One structured call with a :class:`Client` made for it: ``endpoint``, ``model`` and
    ``settings`` as :class:`Client` takes them, the rest as :meth:`Client.generate`."""
    client = Client(endpoint=endpoint, model=model, **settings)
    return client.generate(
        prompt,
        schema=schema,
        tools=tools,
        tool_choice=tool_choice,
        system=system,
        mechanism=mechanism,
        seed=seed,
    )


def _setting_text(value: Any) -> str:
    """A setting's value as ``slmcode config set`` takes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _coercion(item: Mapping[str, str]) -> Coercion:
    return Coercion(item["pointer"], item["kind"], item["from"], item["to"])
