"""How many tokens each part of a record costs, under ftlint's token convention.

OpenAI does not publish how it counts training tokens; ftlint follows OpenAI's cookbook and
extends it to what the cookbook leaves out, for every format of turns:
  per record    3 (priming the reply), plus the compact JSON of tool definitions (`tools`,
                `functions`) and of a structured system field
  per turn      3 + tokens(role) + tokens(text) + [tokens(name) + 1] + tool calls (function name
                and arguments), tool_call_id, a legacy function_call, a refusal
  content       a string, or the sum of its parts: text and refusal parts by their text; an image
                (or other media) 85 tokens, the fixed cost of a low-detail image
  reasoning     an assistant message's `reasoning` or `reasoning_content` (Together, Fireworks) and
                Nova 2's `reasoningContent` block: counted with what the turn says, so trainable
                where the turn trains (Nova 2's guide says the loss covers it; Together's and
                Fireworks' docs present it as what the model learns to think)
Counts use tiktoken with the model's encoding.
"""

from __future__ import annotations

from ..parse import compact_json
from ..tokens import TokenCounter

TOKENS_PER_RECORD = 3
TOKENS_PER_TURN = 3
TOKENS_PER_IMAGE = 85
MEDIA_KEYS = ("image", "image_url", "inlineData", "fileData", "video")
STRUCTURED_KEYS = ("functionCall", "functionResponse", "toolUse", "toolResult", "reasoningContent")
REASONING_KEYS = ("reasoning", "reasoning_content")


class Counting:
    """Counts tokens of turns: what each part of a record costs under the convention above."""

    __slots__ = ("count",)

    def __init__(self, counter: TokenCounter) -> None:
        self.count = counter.count

    def text(self, value: object) -> int:
        return self.count(value) if isinstance(value, str) else 0

    def json(self, value: object) -> int:
        return self.count(compact_json(value, sort_keys=False).decode("utf-8", "surrogatepass")) if value else 0

    def content(self, content: object) -> int:
        """A string, or a list of parts: typed parts ({"type": "text", "text": ...}), untyped
        blocks ({"text": ...}, {"image": ...}), or Gemini parts."""
        if isinstance(content, str):
            return self.count(content)
        if not isinstance(content, list):
            return 0
        n = 0
        for part in content:
            if not isinstance(part, dict):
                continue
            kind = part.get("type")
            if kind == "text" or kind == "refusal":
                n += self.text(part.get(kind))
            elif kind in MEDIA_KEYS or any(k in part for k in MEDIA_KEYS):
                n += TOKENS_PER_IMAGE
            elif "text" in part:
                n += self.text(part["text"])
            else:
                n += sum(self.json(part[k]) for k in STRUCTURED_KEYS if k in part)
        return n

    def body(self, turn: dict) -> int:
        """What a turn says: content or parts, tool calls, a refusal."""
        content = turn.get("content")
        if content is None and "content" not in turn:  # Gemini's parts; mistral-finetune's "text"
            content = turn.get("parts", turn.get("text"))
        n = self.content(content)
        if "refusal" in turn:
            n += self.text(turn["refusal"])
        for key in REASONING_KEYS:
            if key in turn:
                n += self.text(turn[key])
        calls = turn.get("tool_calls")
        if calls and isinstance(calls, list):
            for call in calls:
                if isinstance(call, dict):
                    n += self.function(call.get("function"))
        if "function_call" in turn:
            n += self.function(turn["function_call"])
        return n

    def function(self, function: object) -> int:
        if not isinstance(function, dict):
            return 0
        arguments = function.get("arguments")
        n = self.text(function.get("name"))
        return n + (self.count(arguments) if isinstance(arguments, str) else self.json(arguments))

    def turn(self, turn: dict) -> tuple[int, int]:
        """(all tokens of the turn with its overhead, tokens of what it says)."""
        body = self.body(turn)
        total = TOKENS_PER_TURN + self.text(turn.get("role")) + body
        if "tool_call_id" in turn:
            total += self.text(turn["tool_call_id"])
        name = turn.get("name")
        if isinstance(name, str):
            total += self.count(name) + 1
        return total, body
