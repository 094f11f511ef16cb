"""The use cases' one error: options that cannot go together, or name what does not exist.

The CLI shows it as one line with exit 2; the Python API raises it as it is."""

from __future__ import annotations


class UsageError(Exception):
    """Options that cannot go together, or name what does not exist: exit 2."""
