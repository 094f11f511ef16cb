"""The one protocol of the reports rendered whole (estimate, plan, diff, review, models, formats,
rules): what one use case found in, the report in one output format out. Each report keeps its
renderers in a dict by format name ("text", "json", ...) and the CLI picks one. Only check's
findings stream instead (report/check.py: start, diagnostic, finish), so its memory stays flat
however many there are."""

from __future__ import annotations

from typing import Protocol, TypeVar

Result = TypeVar("Result", contravariant=True)


class Renderer(Protocol[Result]):
    def __call__(self, result: Result, /) -> str: ...
