"""The shape of a record (which family of formats it belongs to), and detection of a file's
format from its first records, with the reason shown to the user."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from ..diagnostics import as_list

COHERE_ROLES = frozenset({"System", "User", "Chatbot", "chatbot"})
# keys an OpenAI chat line may have beside its messages
OPENAI_CHAT_KEYS = frozenset({"messages", "tools", "parallel_tool_calls", "functions"})
# keys of ms-swift's standard format beside its messages (docs/source_en/Customization/Custom-dataset.md)
MS_SWIFT_KEYS = frozenset({"images", "videos", "audios", "rejected_response", "rejected_messages", "rejected_images", "objects",
                           "channel", "chat_template_kwargs", "label"})
MS_SWIFT_ROLES = frozenset({"tool_call", "tool_response"})
DETECT_RECORDS = 50


def shape(record: dict) -> str:
    """The family of formats a record belongs to, from its keys and turns. Runs on every
    record: membership tests only, no sets built."""
    if "preferred_output" in record or "non_preferred_output" in record or isinstance(record.get("input"), dict):
        return "preference-openai"
    if "responses_create_params" in record:
        return "nemo-gym"
    if "reward_model" in record and "prompt" in record:
        return "verl"
    if "conversations" in record:
        return "sharegpt"
    if "instruction" in record and ("output" in record or "chosen" in record):  # Alpaca (its "input" is a string, not a
        return "alpaca"  # preference input); LLaMA-Factory's preference Alpaca has chosen and rejected answers instead
    if "chosen" in record and "rejected" in record:
        return "preference-trl"
    pair = "prompt" in record and "completion" in record
    if pair and "label" in record:
        return "unpaired"
    if "contents" in record:
        return "contents"
    messages = record.get("messages")
    if isinstance(messages, list) and messages and isinstance(messages[-1], dict) and "candidates" in messages[-1]:
        return "nova-preference"
    if "schemaVersion" in record:
        return "nova"
    if isinstance(messages, list) and not MS_SWIFT_KEYS.isdisjoint(record):
        return "ms-swift"
    if isinstance(messages, list):
        return _chat_shape(messages)
    if "messages" in record:
        return "messages"
    if pair:
        prompt = record["prompt"]
        if isinstance(prompt, list) and prompt and isinstance(prompt[0], dict):
            return "prompt-completion-conversational" if "role" in prompt[0] else "prompt-completion-multimodal"
        return "prompt-completion"
    if "text" in record:
        return "text"
    if "prompt" in record:  # a prompt alone: the model writes the completions (RL), or labelled steps (PRM)
        return "stepwise" if "completions" in record and "labels" in record else "prompt-only"
    return "unknown"


def _chat_shape(messages: list) -> str:
    turns = [m for m in messages if isinstance(m, dict)]
    swift = False  # ms-swift's per-message loss, or its agent roles
    for m in turns:
        role = m.get("role")
        if isinstance(role, str) and role in COHERE_ROLES:
            return "cohere"
        swift = swift or (isinstance(role, str) and role in MS_SWIFT_ROLES) or "loss" in m
    for m in turns:
        content = m.get("content")
        if isinstance(content, list) and content and isinstance(content[0], dict) and "type" not in content[0]:
            return "nova"
    return "ms-swift" if swift else "messages"


@dataclass
class Detection:
    name: str
    reason: str
    counts: dict[str, int] = field(default_factory=dict)


def detect(records: list[dict], trainer: str = "", takes: tuple[str, ...] = (), name: str = "") -> Detection:
    """Choose a format from the first records: the most common shape, then the best fit
    among the formats of that shape, or the one of them the file's `name` names; for a trainer
    that `takes` some formats, its own format of that shape (TRL reads OpenAI-style messages as
    trl-messages, Together as together-conversational), where it has one."""
    found = as_named(_detect(records), name) if name else _detect(records)
    return _as_trainer_reads(found, trainer, takes) if takes and found.name not in takes else found


def as_named(found: Detection, name: str) -> Detection:
    """Formats of one shape differ in rules the records cannot show (Fireworks' and OpenAI's
    messages look the same): a file whose name holds one of them as a word (`train.fireworks-chat.jsonl`,
    `fireworks-chat-train.jsonl`, as `ftlint convert --to fireworks-chat` might be told to write it)
    is read as that one. The longest name found wins (azure-openai-chat over openai-chat); the name
    never makes records of another shape a format they are not."""
    from .registry import FORMATS

    base = re.split(r"[/\\]", name)[-1].lower()
    shape = FORMATS[found.name].shape
    named = [n for n, fmt in FORMATS.items() if (fmt.shape == shape or shape in fmt.also_shapes)
             and re.search(rf"(?<![a-z0-9]){re.escape(n)}(?![a-z0-9])", base)]
    if not named:
        return found
    chosen = max(named, key=len)
    if chosen == found.name:
        return found
    return Detection(chosen, f"{found.reason}; the file's name says {chosen}, a format of this shape (--format overrides it)",
                     found.counts)


def _as_trainer_reads(found: Detection, trainer: str, takes: tuple[str, ...]) -> Detection:
    from .registry import FORMATS

    shape = FORMATS[found.name].shape
    for name in takes:
        fmt = FORMATS.get(name)
        if fmt is not None and (fmt.shape == shape or shape in fmt.also_shapes):
            return Detection(name, f"{found.reason}; {trainer} reads this shape as {name}", found.counts)
    return found


def _detect(records: list[dict]) -> Detection:
    from .registry import BY_SHAPE, FORMATS

    if not records:
        return Detection("openai-chat", "no readable record to detect from: openai-chat assumed")
    shapes = Counter(shape(r) for r in records)
    known = Counter({s: c for s, c in shapes.items() if s != "unknown"})
    top, n = (known or shapes).most_common(1)[0]
    if "ms-swift" in known and set(known) <= {"ms-swift", "messages"}:  # ms-swift's format holds plain messages rows too
        top, n = "ms-swift", known["ms-swift"] + known["messages"]
    if top == "unknown":
        keys = sorted({k for r in records for k in r})[:8]
        return Detection("openai-chat", f"no known format has the keys {keys}: openai-chat assumed", dict(shapes))
    name = BY_SHAPE[top]
    why = f"{n} of the first {len(records)} records"
    if top == "messages":
        name, why = _messages_format(records, why)
    else:
        why += f" have the {top} shape ({FORMATS[name].title})"
    if len(shapes) > 1:
        others = ", ".join(f"{s} x{c}" for s, c in shapes.items() if s != top)
        why += f"; other shapes seen: {others}"
    return Detection(name, why, dict(shapes))


def _messages_format(records: list[dict], why: str) -> tuple[str, str]:
    """OpenAI-style messages: plain chat, Bedrock Claude (a top-level system string), or RFT
    prompts (grader fields beside messages that end before any answer). One extra key on chat
    records (an id, metadata) does not make them RFT prompts: it is an unknown key (FT103)."""
    chats = [r for r in records if shape(r) == "messages"]
    extra = _keys_in_most(chats) - OPENAI_CHAT_KEYS
    prompts_only = sum(not any(isinstance(m, dict) and m.get("role") == "assistant" for m in as_list(r.get("messages")))
                       for r in chats)
    developer = sum(any(isinstance(m, dict) and m.get("role") == "developer" for m in as_list(r.get("messages")))
                    for r in chats)
    if extra == {"system"}:
        return "bedrock-claude", why + " have messages and a top-level system string"
    if prompts_only * 2 >= len(chats) and (extra or developer * 2 >= len(chats)):
        fields = f"the grader fields {', '.join(sorted(extra))}" if extra else "a developer role"
        return "openai-rft", why + (f" have messages with {fields} and no assistant answer (prompts for reinforcement "
                                    "fine-tuning); Azure and Bedrock (bedrock-rft) take the same shape: name yours with --format")
    return "openai-chat", why + f" have OpenAI-style messages; {_takers('openai-chat')} take the same shape: name yours with --format"


def _takers(default: str) -> str:
    """The providers and trainers (their formats' labels, in the registry's order) whose format
    has the shape `default` has, besides it: what detection cannot tell apart."""
    from .registry import FORMATS

    shape = FORMATS[default].shape
    labels = [f.label for f in FORMATS.values() if f.shape == shape and f.label and f.name != default]
    return f"{', '.join(labels[:-1])} and {labels[-1]}" if len(labels) > 1 else "".join(labels)


def _keys_in_most(records: list[dict]) -> set[str]:
    """Keys present in at least half of the records: a stray key on one line is not a format."""
    counts = Counter(k for r in records for k in r)
    return {k for k, n in counts.items() if n * 2 >= len(records)}


def read_back(output: str, target: str) -> str:
    """What `convert --to target` says when the file it writes would be read as another format of
    its shape: name the file after the target, or give --format (`as_named`)."""
    from .registry import BY_SHAPE, FORMATS

    default = BY_SHAPE.get(FORMATS[target].shape, target)
    if default == target or as_named(Detection(default, ""), output).name == target:
        return ""
    return f"; ftlint reads it as {default} unless its name says {target} (train.{target}.jsonl) or --format {target} is given"
