"""ftlint: a preflight linter for fine-tuning datasets."""

__version__ = "0.1.0"
