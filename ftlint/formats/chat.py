"""Formats of turns (messages, contents) with roles: which turns are targets, which roles must
alternate, which start and end, and whether a conversation expands into one record per target
(each with all earlier turns as its context). OpenAI's chat format is one of them, with a fast
path for its most common message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..tokens import TokenCounter
from .base import Format, LineFigures, RecordFigures

if TYPE_CHECKING:
    from ..chat.tally import Tally
from .counting import TOKENS_PER_RECORD, TOKENS_PER_TURN, Counting


@dataclass(frozen=True)
class ChatFormat(Format):
    turns_key: str = "messages"
    target_roles: tuple[str, ...] = ("assistant",)
    targets: str = "roles"  # "roles" (weight 0 excluded), "all" (loss on every token), "none" (RFT)
    expansion: str = "none"  # "none", "per-target", "per-target-if-tools" (mistral-finetune's only_last)
    alternate: tuple[str, ...] = ()  # these roles must alternate (others are ignored)
    adjacent: bool = False  # True: no two turns in a row share a role (Together's rule), other roles reset
    first_role: str | None = None
    last_role: str | None = None
    system_key: str | None = None  # a top-level system field counted with every record
    system_aliases: tuple[str, ...] = ()  # other spellings of it the provider accepts
    default_role: str | None = None  # the role of a turn that gives none (Gemini: user)
    role_key: str = "role"  # where a turn says who speaks (ShareGPT: "from"), for JSON paths
    extra_fields_counted: tuple[str, ...] = ("tools", "functions", "available_tools")
    kind = "chat"

    def turns_path(self) -> tuple[str, ...]:
        return (self.turns_key,)

    def turns(self, record: dict) -> list[tuple[int, dict]]:
        turns = record.get(self.turns_key)
        return [(i, t) for i, t in enumerate(turns) if isinstance(t, dict)] if isinstance(turns, list) else []

    def system(self, record: dict) -> object:
        """The top-level system field, under its name or an alias (None: there is none)."""
        if not self.system_key:
            return None
        value = record.get(self.system_key)
        for alias in self.system_aliases:
            if value is not None:
                break
            value = record.get(alias)
        return value

    def expands(self, record: dict) -> bool:
        """Whether the conversation becomes one record per target. mistral-finetune chunks it
        when its sample trains only the last turn: `only_last = data.get("only_last") or
        available_tools is not None`, where a non-empty tools list or an available_tools key (even
        empty) gives available_tools (finetune/data/tokenize.py at 1943535)."""
        if self.expansion == "per-target":
            return True
        if self.expansion == "per-target-if-tools":
            return bool(record.get("tools")) or record.get("available_tools") is not None or bool(record.get("only_last"))
        return False

    def answers_apart(self, record: dict) -> bool:
        """Whether the record's answers are outside its turns (a preference row's chosen and rejected)."""
        return False

    def is_target(self, turn: dict) -> bool:
        """A turn that carries loss: a target role without weight 0."""
        role = turn.get("role")
        return isinstance(role, str) and role.lower() in self.target_roles and turn.get("weight", 1) != 0

    def prompt(self, record: dict) -> object:
        context = []
        for _, turn in self.turns(record):
            if self.is_target(turn):
                break
            context.append(turn)
        return [context, record.get("tools"), self.system(record)]

    def figures(self, record: dict, counter: TokenCounter, tally: Tally | None = None) -> LineFigures:
        if tally is not None and self.turns_key == "messages":
            return self._templated(record, counter, tally)
        return self._convention(record, counter)

    def _templated(self, record: dict, counter: TokenCounter, tally: Tally) -> LineFigures:
        """Tokens of the conversation as the model's chat template renders it; trainable tokens are
        the targets' own (their content), as under the convention."""
        from ..chat.render import OverBudget, TemplateFailure
        from ..chat.silent import system_dropped

        c = Counting(counter)
        turns = self.turns(record)
        messages = [t for _, t in turns]
        # mistral-finetune's top-level system prompt is the sample's (its renderer reads it as a system message)
        given = record.get("system_prompt") if "system_prompt" in self.reads_top else None
        if self.shape == "nova":  # Converse (bedrock-conversation-2024): text parts, a top-level system list
            messages = [_converse_text(t) for t in messages]
            given = _parts_text(self.system(record))
        rendered = [{"role": "system", "content": given}, *messages] if isinstance(given, str) else messages
        tools = record.get("tools")
        expand = self.expands(record)
        head = len(rendered) - len(messages)  # the top-level system prompt, when given
        with tally.record():  # the record's renderings share its seconds
            try:
                if expand and tally.own_mask:  # mistral-finetune's tool samples: each trains its last answer
                    samples = [(k, tally.masked(rendered[: head + k + 1], tools, only_last=True))
                               for k, t in enumerate(messages) if self.is_target(t)]
                    records = [RecordFigures(k + 1, 1, m.tokens, m.trained) for k, m in samples]
                    if records:
                        return LineFigures(records, len(messages), samples=[m for _, m in samples],
                                           system_dropped=system_dropped(rendered, tally.seen))
                    records = [RecordFigures(len(messages), 0, tally.tokens(rendered, tools), 0)]
                elif expand:
                    records = [RecordFigures(k + 1, 1, tally.tokens(rendered[: head + k + 1], tools), c.body(t))
                               for k, t in enumerate(messages) if self.is_target(t)]
                    records = records or [RecordFigures(len(messages), 0, tally.tokens(rendered, tools), 0)]
                elif (tally.loss.assistant_only or self.targets == "all" or tally.own_mask or tally.loss.response_part
                      or tally.masker is not None):
                    # the trainer's own mask: TRL trains every token, or the template's generation spans;
                    # mistral-finetune its assistant messages; another trainer's masker (Trainer.masker)
                    masked = tally.masked(rendered, tools)
                    assistants = sum(1 for t in messages if t.get("role") == "assistant")
                    records = [RecordFigures(len(messages), len(messages) if masked.all_trained else assistants,
                                             masked.tokens, masked.trained)]
                    return LineFigures(records, len(messages), rendered=masked,
                                       system_dropped=system_dropped(rendered, tally.seen))
                else:
                    tokens = tally.tokens(rendered, tools)
                    if self.targets == "none":
                        targets, trainable = 0, 0
                    else:
                        chosen = [t for t in messages if self.is_target(t)]
                        targets, trainable = len(chosen), sum(c.body(t) for t in chosen)
                    records = [RecordFigures(len(messages), targets, tokens, trainable)]
            except TemplateFailure as exc:
                figures = self._convention(record, counter)
                figures.failure, figures.over_budget = str(exc), isinstance(exc, OverBudget)
                return figures
        return LineFigures(records, len(messages), system_dropped=system_dropped(rendered, tally.seen))

    def _convention(self, record: dict, counter: TokenCounter) -> LineFigures:
        c = Counting(counter)
        base = TOKENS_PER_RECORD
        for key in self.extra_fields_counted:
            if value := record.get(key):  # c.json counts nothing of an empty value
                base += c.json(value)
        system = self.system(record)
        if system is not None:
            base += c.text(system) if isinstance(system, str) else c.json(system)
        count = counter.count
        sizes: list[tuple[int, dict, int, int]] = []
        for i, t in self.turns(record):
            role, content = t.get("role"), t.get("content")
            if len(t) == 2 and type(role) is str and type(content) is str:
                body = count(content)  # the common message, as OpenAIChat counts it: Counting.turn's result directly
                sizes.append((i, t, TOKENS_PER_TURN + count(role) + body, body))
            else:
                sizes.append((i, t, *c.turn(t)))
        expand = self.expands(record)
        if expand:
            records, running = [], base
            for k, (_, turn, total, body) in enumerate(sizes):
                running += total
                if self.is_target(turn):
                    records.append(RecordFigures(k + 1, 1, running, body))
            if not records:  # no target: the conversation is still one (useless) record
                records = [RecordFigures(len(sizes), 0, running, 0)]
        else:
            tokens = base + sum(s[2] for s in sizes)
            if self.targets == "all":
                targets, trainable = len(sizes), tokens
            elif self.targets == "none":
                targets, trainable = 0, 0
            else:
                is_target = self.is_target
                targets = trainable = 0
                for s in sizes:
                    if is_target(s[1]):
                        targets += 1
                        trainable += s[3]
            records = [RecordFigures(len(sizes), targets, tokens, trainable)]
        return LineFigures(records, len(sizes))


    def layout(self, record: dict, counter: TokenCounter, tally: Tally | None = None) -> list[list[tuple[int, int]]]:
        """Where the trained tokens lie (Format.layout). By the convention each turn's overhead
        comes before what it says, and the record's own tokens (priming, tools, system field)
        first; through a chat template, a target ends where the conversation rendered up to it
        ends (one more rendering per target, for a long record only)."""
        if tally is not None and self.turns_key == "messages" and not self.expands(record) and self.targets == "roles":
            from ..chat.render import TemplateFailure

            try:
                with tally.record():
                    return [self._rendered_layout(record, counter, tally)]
            except TemplateFailure:
                pass  # its figures are the convention's too (figures())
        return self._convention_layout(record, counter)

    def _rendered_layout(self, record: dict, counter: TokenCounter, tally: Tally) -> list[tuple[int, int]]:
        c = Counting(counter)
        messages = [t for _, t in self.turns(record)]
        tools = record.get("tools")
        pairs, position = [], 0
        for k, turn in enumerate(messages):
            if self.is_target(turn):
                end = tally.tokens(messages[: k + 1], tools)
                start = max(end - c.body(turn), position)
                pairs.append((start - position, end - start))
                position = end
        rest = tally.tokens(messages, tools) - position
        return [*pairs, (rest, 0)] if rest > 0 else pairs

    def _convention_layout(self, record: dict, counter: TokenCounter) -> list[list[tuple[int, int]]]:
        c = Counting(counter)
        base = TOKENS_PER_RECORD + sum(c.json(record.get(k)) for k in self.extra_fields_counted)
        system = self.system(record)
        if system is not None:
            base += c.text(system) if isinstance(system, str) else c.json(system)
        sizes = [(t, *c.turn(t)) for _, t in self.turns(record)]
        if self.expands(record):
            out, running = [], base
            for turn, total, body in sizes:
                running += total
                if self.is_target(turn):
                    out.append([(running - body, body)])
            return out or [[(running, 0)]]
        tokens = base + sum(s[1] for s in sizes)
        if self.targets != "roles":
            return [[(0, tokens)] if self.targets == "all" else [(tokens, 0)]]
        pairs, untrained = [], base
        for turn, total, body in sizes:
            if self.is_target(turn):
                pairs.append((untrained + total - body, body))
                untrained = 0
            else:
                untrained += total
        return [[*pairs, (untrained, 0)] if untrained else pairs]


class NovaPreference(ChatFormat):
    """Nova's DPO: the turns of its supervised format, the last an assistant turn holding two
    candidates (one preferred, one not) instead of content. One line is one pair; the two
    candidates carry the loss, every earlier turn is their shared prompt."""

    def figures(self, record: dict, counter: TokenCounter, tally: Tally | None = None) -> LineFigures:
        c = Counting(counter)
        system = self.system(record)
        tokens = TOKENS_PER_RECORD + (c.json(system) if system is not None else 0)
        trainable = 0
        turns = self.turns(record)
        for _, turn in turns:
            candidates = turn.get("candidates")
            if not isinstance(candidates, list):
                tokens += c.turn(turn)[0]
                continue
            for candidate in candidates:
                if isinstance(candidate, dict):
                    body = c.content(candidate.get("content"))
                    tokens += TOKENS_PER_TURN + c.text(turn.get("role")) + body
                    trainable += body
        return LineFigures([RecordFigures(len(turns), 1, tokens, trainable)], len(turns))


# ShareGPT's speakers, as roles
SHAREGPT_ROLES = {"human": "user", "user": "user", "gpt": "assistant", "assistant": "assistant", "chatgpt": "assistant",
                  "bing": "assistant", "bard": "assistant", "model": "assistant", "system": "system", "function_call": "assistant",
                  "observation": "tool", "tool": "tool"}


class ShareGPT(ChatFormat):
    """ShareGPT: {"conversations": [{"from": "human", "value": ...}, {"from": "gpt", ...}]}, with an
    optional top-level system and per-turn weight (OpenHermes-2.5 writes 0.0/1.0 or null). Each
    turn is read as a message: its speaker mapped to a role, its value as content, so every rule
    of turns applies; JSON paths name ShareGPT's own keys."""

    def turns(self, record: dict) -> list[tuple[int, dict]]:
        turns = record.get(self.turns_key)
        if not isinstance(turns, list):
            return []
        out = []
        for i, turn in enumerate(turns):
            if not isinstance(turn, dict):
                continue
            speaker = turn.get("from")
            message: dict = {"role": SHAREGPT_ROLES.get(speaker.lower(), speaker) if isinstance(speaker, str) else speaker,
                             "content": turn.get("value")}
            weight = turn.get("weight")
            if weight is not None:
                message["weight"] = weight
            out.append((i, message))
        return out

    def answers_apart(self, record: dict) -> bool:
        """LLaMA-Factory's ranking rows (data/README.md, Preference Dataset): the conversation up to
        the last prompt, and the chosen and the rejected answer as turns of their own."""
        return isinstance(record.get("chosen"), dict) and isinstance(record.get("rejected"), dict)

    def _convention(self, record: dict, counter: TokenCounter) -> LineFigures:
        system = record.get("system")
        normalised = {"messages": ([{"role": "system", "content": system}] if isinstance(system, str) and system else [])
                      + [m for _, m in self.turns(record)], "tools": record.get("tools")}
        return ChatFormat._convention(AS_MESSAGES, normalised, counter)

    def _messages(self, record: dict) -> dict:
        system = record.get("system")
        return {"messages": ([{"role": "system", "content": system}] if isinstance(system, str) and system else [])
                + [m for _, m in self.turns(record)], "tools": record.get("tools")}

    def layout(self, record: dict, counter: TokenCounter, tally: Tally | None = None) -> list[list[tuple[int, int]]]:
        return AS_MESSAGES.layout(self._messages(record), counter, tally)

    def figures(self, record: dict, counter: TokenCounter, tally: Tally | None = None) -> LineFigures:
        if tally is not None:
            system = record.get("system")
            messages = ([{"role": "system", "content": system}] if isinstance(system, str) and system else []) \
                + [m for _, m in self.turns(record)]
            return AS_MESSAGES.figures({"messages": messages, "tools": record.get("tools")}, counter, tally)
        return self._convention(record, counter)


def _parts_text(parts: object) -> str | None:
    """The text of Converse content parts that are all text ([{"text": ...}, ...]), joined; None
    when a part is not text (an image: the model's text template cannot write it)."""
    if not isinstance(parts, list) or not parts or not all(isinstance(p, dict) and set(p) == {"text"} for p in parts):
        return None
    texts = [p["text"] for p in parts]
    return "".join(texts) if all(isinstance(t, str) for t in texts) else None


def _converse_text(turn: dict) -> dict:
    """A Converse turn as a chat template reads a message: its text parts as one string (Bedrock
    does not say how it joins several; they are written one after the other). A turn with an
    image keeps its parts, and the template refuses it (FT230)."""
    text = _parts_text(turn.get("content"))
    return turn if text is None else {**turn, "content": text}


@dataclass(frozen=True)
class MsSwift(ChatFormat):
    """ms-swift's standard format (docs/source_en/Customization/Custom-dataset.md): messages, with
    `images`, `videos`, `audios` whose entries stand where <image>, <video>, <audio> do; an
    assistant (or tool_call) message trains unless its `loss` is false (loss_scale 'default');
    a `rejected_response` (a string, or assistant messages) is the other side of a preference pair,
    counted with the record; `label` marks a KTO row."""

    target_roles: tuple[str, ...] = ("assistant", "tool_call")

    def is_target(self, turn: dict) -> bool:
        role = turn.get("role")
        return isinstance(role, str) and role in self.target_roles and turn.get("loss") is not False

    def figures(self, record: dict, counter: TokenCounter, tally: Tally | None = None) -> LineFigures:
        figures = super().figures(record, counter, tally)
        rejected = record.get("rejected_response")
        if rejected and figures.records:
            c = Counting(counter)
            turns = [{"role": "assistant", "content": rejected}] if isinstance(rejected, str) else \
                [t for t in rejected if isinstance(t, dict)] if isinstance(rejected, list) else []
            sizes = [c.turn(t) for t in turns]
            first = figures.records[0]
            first.tokens += sum(total for total, _ in sizes)
            first.trainable += sum(body for _, body in sizes)
            first.targets += len(sizes)
        return figures


# how a shape read as plain messages (ShareGPT, Alpaca) is counted: assistant turns without weight 0 train
AS_MESSAGES = ChatFormat(name="(as messages)", title="", providers="", record_rule="", schema="", shape="")


OPENAI_RECORD_RULE = "1 line = 1 record; every assistant message without weight 0 is a target (the conversation is not split)"


@dataclass(frozen=True)
class OpenAIChat(ChatFormat):
    """OpenAI's chat format, and providers that take it as it is (Azure, Mistral, Fireworks):
    one line is one training example; every assistant message without weight 0 is a target
    inside it. Its figures are the general ones, with the common message counted directly."""

    schema: str = "openai-chat"
    shape: str = "messages"
    record_rule: str = OPENAI_RECORD_RULE
    family: str = "openai"
    min_examples: int | None = 10

    def figures(self, record: dict, counter: TokenCounter, tally: Tally | None = None) -> LineFigures:
        if tally is not None:
            return super().figures(record, counter, tally)
        c = Counting(counter)
        count = counter.count
        tokens = TOKENS_PER_RECORD + c.json(record.get("tools")) + c.json(record.get("functions"))
        trainable = targets = turns = 0
        messages = record.get("messages")
        for message in messages if isinstance(messages, list) else ():
            if not isinstance(message, dict):
                continue
            turns += 1
            role, content = message.get("role"), message.get("content")
            if len(message) == 2 and type(role) is str and type(content) is str:
                # the common message, {"role": ..., "content": "..."}: Counting.turn's result
                # without its general walk
                body = count(content)
                tokens += TOKENS_PER_TURN + count(role) + body
            else:
                total, body = c.turn(message)
                tokens += total
            if role == "assistant" and message.get("weight", 1) != 0:
                targets += 1
                trainable += body
        return LineFigures([RecordFigures(turns, targets, tokens, trainable)], turns)
