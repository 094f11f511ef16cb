"""The formats `ftlint convert` reads and writes (convert/ holds how): listed here, below the
rules, so that a rule can name the convert command that gets a file to a trainer's format."""

from __future__ import annotations

MESSAGES_FORMATS = ("openai-chat", "azure-openai-chat", "fireworks-chat", "together-conversational", "mistral-chat", "trl-messages")
CONVERTIBLE = (*MESSAGES_FORMATS, "sharegpt", "alpaca", "vertex-gemini", "bedrock-nova")
