"""A conversation as mistral-finetune tokenizes it: mistral-common's V3 instruct tokenizer, no
Jinja (the renderer of ftlint/trainers/mistral_finetune.py, MISTRAL_COMMON).

mistral-finetune (mistralai/mistral-finetune@1943535) builds a sample in finetune/data/tokenize.py
build_instruct_sample (a system message, wherever it is, becomes the sample's system prompt; so
does a top-level system_prompt) and encodes it message by message in tokenize_instruct, with
MistralTokenizer.v3(is_tekken=True)'s instruct tokenizer (train.py _train) from mistral-common 1.3.1
to 1.5.4, the only versions its imports load (InstructTokenizerV2/V3 in
mistral_common/tokens/tokenizers/sentencepiece.py at v1.5.4, 6e63743):

  <s>                                             once, never trained
  user        [AVAILABLE_TOOLS] json [/AVAILABLE_TOOLS] before the last user turn, when tools exist;
              [INST] text [/INST], where the last user turn's text is system + "\\n\\n" + its own
  assistant   text.rstrip(" ") </s>, or [TOOL_CALLS] json </s> (the last message's call ids
              removed: maybe_remove_call_id); trained, </s> included, unless weight 0 or (with
              tools or only_last) it is not the last message
  tool        [TOOL_RESULTS] {"content": ..., "call_id": ...} [/TOOL_RESULTS]

Each text is encoded on its own as plain text (Tekkenizer.encode: no special token is ever read
from text), so "[INST]" or "</s>" in content is characters, never a control token.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

BOS, EOS = "<s>", "</s>"
INST, END_INST = "[INST]", "[/INST]"
TOOLS, END_TOOLS = "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]"
RESULTS, END_RESULTS = "[TOOL_RESULTS]", "[/TOOL_RESULTS]"
CALLS = "[TOOL_CALLS]"


@dataclass(frozen=True, slots=True)
class Piece:
    """One control token, or one text mistral-common encodes on its own."""

    text: str
    special: bool
    trained: bool = False


def _text(value: object) -> list[str]:
    """A message's text: a string, or its text parts (each part encoded on its own)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [p["text"] for p in value if isinstance(p, dict) and isinstance(p.get("text"), str)]
    return []


def _content(message: dict) -> object:
    return message["content"] if message.get("content") is not None else message.get("text")


def _parsed(value: object) -> object:
    """mistral-common's _parse_json_content: JSON text as its value, anything else as it is."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _tool(tool: object) -> dict:
    """A tool definition as mistral-common's Tool.model_dump() writes it."""
    function = tool.get("function") if isinstance(tool, dict) else None
    function = function if isinstance(function, dict) else {}
    return {"type": "function", "function": {"name": function.get("name"), "description": function.get("description", ""),
                                             "parameters": function.get("parameters")}}


def _call(call: object, keep_id: bool) -> dict:
    function = call.get("function") if isinstance(call, dict) else None
    function = function if isinstance(function, dict) else {}
    out = {"name": function.get("name"), "arguments": _parsed(function.get("arguments"))}
    call_id = call.get("id") if isinstance(call, dict) else None
    if keep_id and isinstance(call_id, str) and call_id and call_id != "null":
        out["id"] = call_id
    return out


def system_prompt(messages: Sequence[dict], given: object = None) -> str | None:
    """The sample's system prompt: a top-level system_prompt, else the first system message's text."""
    if isinstance(given, str):
        return given
    for message in messages:
        if message.get("role") == "system":
            return "".join(_text(_content(message)))
    return None


def pieces(messages: Sequence[dict], tools: object = None, only_last: bool = False, system: object = None) -> list[Piece]:
    """The sample's pieces in order: tokens are one per special piece plus each text's encoding."""
    turns = [m for m in messages if isinstance(m, dict) and m.get("role") != "system"]
    prompt = system_prompt([m for m in messages if isinstance(m, dict)], system)
    available = [_tool(t) for t in tools] if isinstance(tools, list) and tools else []
    only_last = only_last or bool(available)
    users = [i for i, m in enumerate(turns) if m.get("role") == "user"]
    last_user = users[-1] if users else -1
    out = [Piece(BOS, True)]
    for i, message in enumerate(turns):
        role = message.get("role")
        if role == "user":
            if i == last_user and available:
                out += [Piece(TOOLS, True), Piece(_dumps(available), False), Piece(END_TOOLS, True)]
            texts = _text(_content(message)) or [""]
            if i == last_user and prompt:
                texts[0] = prompt + "\n\n" + texts[0]
            out += [Piece(INST, True), *(Piece(t, False) for t in texts), Piece(END_INST, True)]
        elif role == "assistant":
            last = i == len(turns) - 1
            trained = message.get("weight") in (None, 1) and (not only_last or last)
            calls = message.get("tool_calls")
            if isinstance(calls, list) and calls:
                out += [Piece(CALLS, True, trained), Piece(_dumps([_call(c, not last) for c in calls]), False, trained)]
            else:
                out.append(Piece("".join(_text(_content(message))).rstrip(" "), False, trained))
            out.append(Piece(EOS, True, trained))
        elif role == "tool":
            result = {"content": _parsed(_content(message)), "call_id": message.get("tool_call_id")}
            out += [Piece(RESULTS, True), Piece(_dumps(result), False), Piece(END_RESULTS, True)]
    return out
