"""The exceptions slmcode raises, all under :class:`Error`, each with its evidence."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence


@dataclass(frozen=True)
class Violation:
    """One way a value does not satisfy a schema: where (a JSON pointer, ``""`` for the
    root) and what is wrong there."""

    pointer: str
    message: str


class Error(Exception):
    """The base of every slmcode error.

    The fields a failure does not have are empty (``None``, ``[]``). ``failure_class`` is the
    repair ladder's (``empty``, ``prose``, ``truncated``, ``malformed``, ``wrong_shape``,
    ``repetition``, or a tool turn's); ``meta`` is the call's meta after a failed
    :func:`slmcode.generate`, the same JSON ``slmcode generate --json`` prints.
    """

    message: str
    failure_class: Optional[str]
    offset: Optional[int]
    errors: List[Violation]
    partial: Optional[Dict[str, Any]]
    missing_required: List[str]
    value: Any
    rungs: List[str]
    coercions: List[Dict[str, Any]]
    repetition: Optional[Dict[str, Any]]
    meta: Optional[Dict[str, Any]]
    raw: Optional[str]
    raw_cut: bool
    text_fallback: Optional[str]

    def __init__(
        self,
        message: str,
        *,
        failure_class: Optional[str] = None,
        offset: Optional[int] = None,
        errors: Sequence[Mapping[str, str]] = (),
        partial: Optional[Dict[str, Any]] = None,
        missing_required: Sequence[str] = (),
        value: Any = None,
        rungs: Sequence[str] = (),
        coercions: Sequence[Dict[str, Any]] = (),
        repetition: Optional[Dict[str, Any]] = None,
        meta: Optional[Dict[str, Any]] = None,
        raw: Optional[str] = None,
        raw_cut: bool = False,
        text_fallback: Optional[str] = None,
        **fields: Any,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.failure_class = failure_class
        self.offset = offset
        self.errors = [Violation(error["pointer"], error["message"]) for error in errors]
        self.partial = partial
        self.missing_required = list(missing_required)
        self.value = value
        self.rungs = list(rungs)
        self.coercions = list(coercions)
        self.repetition = repetition
        self.meta = meta
        self.raw = raw
        self.raw_cut = raw_cut
        self.text_fallback = text_fallback
        for name, field in fields.items():
            setattr(self, name, field)


class ProseError(Error):
    """The text holds no JSON object or array (class ``prose``), or nothing at all
    (``empty``). Re-ask for JSON only."""


class TruncatedError(Error):
    """The JSON stops early. ``partial`` holds the members of a top-level object that were
    complete (not validated), ``missing_required`` the schema's required names not among
    them. Re-ask with more room, or continue from ``partial``."""


class MalformedError(Error):
    """JSON broken in a way no rung of the repair ladder repairs, or nested too deep."""


class RepetitionError(Error):
    """The answer loops (``repetition`` says how); a larger budget would only make the loop
    longer."""


class SchemaViolation(Error):
    """Valid JSON that does not satisfy the schema: ``errors`` holds every violation with its
    JSON pointer, ``value`` the value as parsed."""


class SchemaError(Error, ValueError):
    """The schema does not compile, or no contract has that name."""


class ConfigError(Error, ValueError):
    """A setting is unknown or its value is not valid, or the config file cannot be read."""


class RequestError(Error, ValueError):
    """The request cannot be made (an empty prompt, tools that do not parse); nothing was
    sent."""


class EndpointError(Error):
    """The endpoint failed after the retries its class allows, or the call's deadline passed
    (``error_class`` ``canceled``, with what had arrived in ``raw`` and ``partial``).
    ``error_class`` and ``status`` say how."""

    error_class: str = "unknown"
    status: Optional[int] = None
