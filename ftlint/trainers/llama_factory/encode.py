"""A conversation as LLaMA-Factory's template encodes it, message by message
(src/llamafactory/data/template.py at ff6d4d1: Template._encode, encode_multiturn,
encode_oneturn; Llama2Template._encode; ReasoningTemplate's thought handling), and a dataset row
as its converters align it (data/converter.py AlpacaDatasetConverter, SharegptDatasetConverter).

Each message is a list of slots, each slot tokenized on its own (Template._convert_elements_to_ids:
`tokenizer.encode(text, add_special_tokens=False)`, so the tokenizer finds its added tokens in
it; a bos or eos slot is one token). A Piece is one slot: its text and its tokens."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..rendering import Vocab
from .templates import Special, Template
from .tools import call_text, tool_text

THOUGHT = ("<think>\n", "\n</think>\n\n")  # register_template's default thought_words
CALL_WORDS = ("<tool_call>", "</tool_call>")  # ... and tool_call_words
USER, ASSISTANT, OBSERVATION, FUNCTION = "user", "assistant", "observation", "function"
# a ShareGPT speaker (as the column mapping names it, ftlint/mapping.py CANONICAL_SPEAKER) -> LLaMA-Factory's role
SPEAKERS = {"human": USER, "gpt": ASSISTANT, "observation": OBSERVATION, "function_call": FUNCTION}
Message = tuple[str, str]  # (role, content)


@dataclass(frozen=True, slots=True)
class Piece:
    text: str
    tokens: int


@dataclass(frozen=True, slots=True)
class Aligned:
    """A row as the converter aligns it: _prompt, _response, _system, _tools."""

    prompt: list[Message]
    response: list[Message]
    system: str
    tools: str
    kto: bool | None = None  # the kto_tag column's value, when it is a bool


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def align_alpaca(record: dict, columns: frozenset[str]) -> Aligned:
    """AlpacaDatasetConverter: history pairs, then instruction and input joined by a newline as
    the user turn; the output (or chosen and rejected, or a KTO answer) as the response."""
    prompt: list[Message] = []
    history = record.get("history") if "history" in columns else None
    for pair in history if isinstance(history, list) else []:
        old_prompt, old_answer = pair
        prompt += [(USER, str(old_prompt)), (ASSISTANT, str(old_answer))]
    query = [q for q in (record.get("instruction"), record.get("input")) if q]
    prompt.append((USER, "\n".join(str(q) for q in query)))
    tag = record.get("kto_tag") if "kto_tag" in columns else None
    output = record.get("output")
    if isinstance(tag, bool):
        answer = (ASSISTANT, _text(output))
        response = [answer, (ASSISTANT, "")] if tag else [(ASSISTANT, ""), answer]
    elif "chosen" in columns and isinstance(record.get("chosen"), str) and isinstance(record.get("rejected"), str):
        response = [(ASSISTANT, record["chosen"]), (ASSISTANT, record["rejected"])]
    elif isinstance(output, str):
        response = [(ASSISTANT, output)]
    else:
        response = []
    return Aligned(prompt, response, _text(record.get("system")) if "system" in columns else "",
                   _text(record.get("tools")) if "tools" in columns else "", tag if isinstance(tag, bool) else None)


def align_sharegpt(record: dict, columns: frozenset[str], ranking: bool) -> Aligned:
    """SharegptDatasetConverter: a leading system turn is the system prompt; user or observation
    turns at even places and assistant or function_call turns at odd ones, an even count (odd for
    a ranking row), else the row is broken and its prompt and response are empty."""
    turns = record.get("conversations")
    turns = turns if isinstance(turns, list) else []
    system = _text(record.get("system")) if "system" in columns else ""
    if turns and isinstance(turns[0], dict) and turns[0].get("from") == "system":
        system, turns = _text(turns[0].get("value")), turns[1:]
    aligned: list[Message] = []
    for i, turn in enumerate(turns):
        role = SPEAKERS.get(str(turn.get("from"))) if isinstance(turn, dict) else None
        if role is None or role not in ((USER, OBSERVATION), (ASSISTANT, FUNCTION))[i % 2]:
            return Aligned([], [], "", "")
        content = turn.get("value")
        if not isinstance(content, str):
            raise TypeError("a turn's content is not text")
        aligned.append((role, content))
    tools = _text(record.get("tools")) if "tools" in columns else ""
    if len(aligned) % 2 != (1 if ranking else 0):
        return Aligned([], [], "", "")
    tag = record.get("kto_tag") if "kto_tag" in columns else None
    if isinstance(tag, bool):
        empty = (ASSISTANT, "")
        return Aligned(aligned[:-1], [aligned[-1], empty] if tag else [empty, aligned[-1]], system, tools, tag)
    chosen, rejected = record.get("chosen"), record.get("rejected")
    if ranking and isinstance(chosen, dict) and isinstance(rejected, dict):
        picked = [(SPEAKERS.get(str(c.get("from")), ASSISTANT), _text(c.get("value"))) for c in (chosen, rejected)]
        return Aligned(aligned, picked, system, tools)
    return Aligned(aligned[:-1], aligned[-1:], system, tools)


def _slots(slots: tuple, content: str, vocab: Vocab, eos: str) -> list[Piece]:
    """StringFormatter.apply then _convert_elements_to_ids: each text slot with its first
    "{{content}}" filled in, tokenized on its own; a bos slot is one token if the tokenizer has one."""
    pieces = []
    for slot in slots:
        if isinstance(slot, Special):
            if slot.kind == "bos" and vocab.bos:
                pieces.append(Piece(vocab.bos, 1))
            elif slot.kind != "bos":
                pieces.append(Piece(eos if slot.kind == "eos" else slot.token, 1))
        else:
            text = slot.replace("{{content}}", content, 1)
            if text:
                pieces.append(Piece(text, vocab.count(text)))
    return pieces


def messages_pieces(template: Template, messages: list[Message], system: str, tools: str, vocab: Vocab) -> list[list[Piece]]:
    """Template._encode (Llama2Template's for a template that fuses the system prompt into the
    first user turn): each message's pieces; the first one's begin with the prefix and the system
    prompt with the tools' text after it."""
    eos = template.stop_words[0] if template.replace_eos else vocab.eos
    system = system or template.default_system
    out = []
    for i, (role, content) in enumerate(messages):
        pieces: list[Piece] = []
        head = ""
        if i == 0:
            pieces += _slots(template.prefix, "", vocab, eos)
            if system or tools:
                text = tool_text(tools, template.tool_format, vocab.date) if tools else ""
                made = _slots(template.system_slots, system + text, vocab, eos)
                if template.fused_system:  # Llama2Template: format_system.apply(...)[0], the first slot's text
                    first = template.system_slots[0]
                    head = first.replace("{{content}}", system + text, 1) if isinstance(first, str) else ""
                else:
                    pieces += made
        if role == USER:
            pieces += _slots(template.user, head + content, vocab, eos)
        elif role == ASSISTANT:
            pieces += _slots(template.assistant_slots, content, vocab, eos)
        elif role == OBSERVATION:
            pieces += _slots(template.observation_slots, content, vocab, eos)
        else:
            words = (None, None) if template.fused_system else (THOUGHT, CALL_WORDS)
            calls = call_text(content, template.calls_format, *words)
            pieces += _slots(template.function_slots, calls, vocab, eos)
        out.append(pieces)
    return out


def remove_thought(content: str) -> str:
    """ReasoningTemplate.remove_thought: every thought block removed, then leading newlines."""
    pattern = re.compile(f"{re.escape(THOUGHT[0])}(.*?){re.escape(THOUGHT[1])}", re.DOTALL)
    return re.sub(pattern, "", content).lstrip("\n")


def _has_thought(content: str) -> bool:
    return THOUGHT[0].strip() in content or THOUGHT[1].strip() in content


def multiturn(template: Template, messages: list[Message], system: str, tools: str, vocab: Vocab, thinking: bool,
              discard_history_cot: bool) -> list[tuple[list[Piece], list[Piece]]]:
    """encode_multiturn: (prompt, answer) pieces of each turn. A reasoning template (qwen3) writes
    an empty thought before an answer that has none: trained with enable_thinking (the default),
    else at the end of the prompt, after removing every answer's thought."""
    messages = list(messages)
    if template.reasoning:
        for i in range(1, len(messages), 2):
            if not thinking or (discard_history_cot and i < len(messages) - 2):
                messages[i] = (messages[i][0], remove_thought(messages[i][1]))
    encoded = messages_pieces(template, messages, system, tools, vocab)
    if template.reasoning:
        empty = Piece(THOUGHT[0] + THOUGHT[1], vocab.count(THOUGHT[0] + THOUGHT[1]))
        for i in [len(messages) - 2] if discard_history_cot else range(0, len(messages), 2):
            if not _has_thought(messages[i + 1][1]):
                if thinking:
                    encoded[i + 1] = [empty, *encoded[i + 1]]
                else:
                    encoded[i] = [*encoded[i], empty]
    return [(encoded[i], encoded[i + 1]) for i in range(0, len(encoded), 2)]


def oneturn(template: Template, messages: list[Message], system: str, tools: str, vocab: Vocab, thinking: bool,
            preserve: bool) -> tuple[list[Piece], list[Piece]]:
    """encode_oneturn: every message but the last as the prompt, the last as the answer (KTO and
    the preference stages); a reasoning template's thought handled as ReasoningTemplate does."""
    messages = list(messages)
    if template.reasoning:
        for i in range(1, len(messages) - 2, 2) if not preserve else ():
            messages[i] = (messages[i][0], remove_thought(messages[i][1]))
        if not thinking:
            messages[-1] = (messages[-1][0], remove_thought(messages[-1][1]))
    encoded = messages_pieces(template, messages, system, tools, vocab)
    prompt = [p for pieces in encoded[:-1] for p in pieces]
    answer = encoded[-1]
    if template.reasoning and not _has_thought(messages[-1][1]):
        empty = Piece(THOUGHT[0] + THOUGHT[1], vocab.count(THOUGHT[0] + THOUGHT[1]))
        if thinking:
            answer = [empty, *answer]
        else:
            prompt = [*prompt, empty]
    return prompt, answer


__all__ = ["ASSISTANT", "Aligned", "Message", "Piece", "Vocab", "align_alpaca", "align_sharegpt", "multiturn", "oneturn"]
