"""What axolotl trains of a conversation: its chat_template prompt strategy
(src/axolotl/prompt_strategies/chat_template.py ChatTemplateStrategy._tokenize_single_prompt,
find_turn, find_first_eot_token, find_first_eos_token, at axolotl-ai-cloud/axolotl@067b021),
followed step by step on ftlint's rendering and tokenizer:

  - the conversation is rendered once, whole, and tokenized: the labels start all masked;
  - a turn trains when its role is one of roles_to_train (default ['assistant']), or with
    train_on_inputs; its span is found by rendering the conversation up to it twice, once with
    its content replaced by "[[dummy_message]]" (role kept, every other key dropped), and taking
    the tokens between the first and the last place the two differ (no span: nothing of it);
  - after each turn it looks at (a trained one, or any with train_on_eos/eot 'all'), the first
    end-of-turn token (eot_tokens, default the tokenizer's eos) and the first eos from the span's
    end, each within 3 tokens of it: 'turn' trains the one after a trained turn, 'all' every one,
    'last' only the last one found; 'none' none.

Every index is taken from the partial renderings and applied to the whole one, as axolotl does.
The Trainer gives this mask (Trainer.masker) and ftlint/chat's Tally hands itself to it: what the
mask uses of the Tally is ftlint/trainers/rendering.py's Tally, so nothing here imports ftlint/chat.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..cut import pairs_of_mask
from ..rendering import Encoding, Masked, Tally

DUMMY = "[[dummy_message]]"  # find_turn's stand-in content
EOS_REACH = 3  # "Allow for some template padding": an end-of-turn token within 3 tokens of the span's end
DEFAULT_ROLES = {"human": "user", "user": "user", "assistant": "assistant", "gpt": "assistant", "system": "system", "tool": "tool"}
EOS_CHOICES = ("all", "turn", "last", "none")
SPELLED_NEW = 2  # load_tokenizer refuses a special token the tokenizer encodes in more tokens than this


@dataclass(frozen=True, slots=True)
class TurnLoss:
    """The keys of an axolotl config that decide what a chat_template dataset trains, with
    axolotl's defaults (StrategyLoader._get_strategy_params)."""

    roles_to_train: tuple[str, ...] = ("assistant",)
    train_on_eos: str = "turn"
    train_on_eot: str | None = None  # None: as train_on_eos
    eot_tokens: tuple[str, ...] | None = None  # None: the tokenizer's eos
    train_on_inputs: bool = False
    message_field_training: str | None = None
    drop_system_message: bool = False
    template_kwargs: tuple[tuple[str, object], ...] = ()  # chat_template_kwargs
    sequence_len: int = 512  # the alpaca strategy's tokenizer truncates each part at it
    eos_token: str | None = None  # special_tokens' eos_token and bos_token, over the tokenizer's own
    bos_token: str | None = None
    special_tokens: tuple[str, ...] = ()  # the tokens load_tokenizer adds: special_tokens' (control tokens) ...
    tokens: tuple[str, ...] = ()  # ... and the config's tokens (plain words of the vocabulary)
    # special_tokens' (name, token) but pad_token's, of an adapter run that does not save the embedding layers
    unsaved_special_tokens: tuple[tuple[str, str], ...] = ()

    @property
    def eot(self) -> str:
        return self.train_on_eot if self.train_on_eot is not None else self.train_on_eos

    @classmethod
    def of(cls, keys: Sequence[tuple[str, object]]) -> TurnLoss:
        """From the (key, value) pairs its config reader kept (Loss.keys: trainers/axolotl/mapping.py `loss_keys`)."""
        given = dict(keys)
        kwargs, eot, field = given.get("chat_template_kwargs"), given.get("train_on_eot"), given.get("message_field_training")
        length, eos, bos = given.get("sequence_len"), given.get("eos_token"), given.get("bos_token")
        unsaved = given.get("unsaved_special_tokens")
        return cls(
            roles_to_train=_strings(given.get("roles_to_train", ("assistant",))),
            train_on_eos=str(given.get("train_on_eos", "turn")),
            train_on_eot=eot if isinstance(eot, str) else None,
            eot_tokens=_strings(given["eot_tokens"]) if given.get("eot_tokens") is not None else None,
            train_on_inputs=bool(given.get("train_on_inputs", False)),
            message_field_training=field if isinstance(field, str) else None,
            drop_system_message=bool(given.get("drop_system_message", False)),
            template_kwargs=tuple(kwargs) if isinstance(kwargs, tuple) else (),
            sequence_len=length if isinstance(length, int) else 512,
            eos_token=eos if isinstance(eos, str) else None,
            bos_token=bos if isinstance(bos, str) else None,
            special_tokens=_strings(given.get("special_tokens")),
            tokens=_strings(given.get("tokens")),
            unsaved_special_tokens=tuple((str(n), str(t)) for n, t in unsaved) if isinstance(unsaved, tuple) else (),
        )


def _strings(value: object) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, (tuple, list)) else ()


class AxolotlMasker:
    """axolotl's labels for a record (its Trainer.masker): conversations
    through the chat template, Alpaca rows through its own prompt."""

    def __init__(self, loss: TurnLoss) -> None:
        self.loss = loss

    def tokenizer(self, specials: tuple[str, ...], eos: str, bos: str, words: bool = True) -> tuple[tuple[str, ...], str, str]:
        """The added tokens, eos and bos of the model's tokenizer (`specials`, `eos`, `bos`) as
        axolotl's load_tokenizer leaves them (loaders/tokenizer.py): each
        token of special_tokens (and with `words`, of tokens) an added token, matched whole in any
        text (as add_special_tokens and add_tokens make it, even one new to the vocabulary), and the
        eos and bos those of special_tokens: the template's eos_token and bos_token, the eos looked
        for after a turn and appended to an Alpaca output. The bos the tokenizer puts before a text
        stays the model's own (Tally.text_bos): its post-processor holds it by id (so on Qwen's and
        Llama 3's tokenizers under transformers 5.14.1, axolotl's environment)."""
        loss = self.loss
        added = (*loss.special_tokens, *(loss.tokens if words else ()))
        new = tuple(dict.fromkeys(t for t in added if t and t not in specials))
        return specials + new, loss.eos_token or eos, loss.bos_token or bos

    @property
    def asks_tokenizer(self) -> bool:
        """Whether `refusal` has a token to count."""
        return bool(self.loss.unsaved_special_tokens)

    def refusal(self, count: Callable[[str], int]) -> str | None:
        """Why axolotl stops as it loads the tokenizer (loaders/tokenizer.py load_tokenizer): an adapter run
        that does not save the embedding layers sets a special token (not pad_token) that the model's
        tokenizer spells with more than two tokens (`count`: the model's tokenizer, its own added tokens
        whole); a token the tokenizer has is one token and passes."""
        for name, token in self.loss.unsaved_special_tokens:
            n = count(token)
            if n > SPELLED_NEW:
                return (f"special_tokens.{name} {token!r} is new to the model's tokenizer ({n} of its tokens): axolotl "
                        "stops on an adapter run unless lora_modules_to_save lists the embedding layers (embed_tokens "
                        "and lm_head) (src/axolotl/loaders/tokenizer.py load_tokenizer)")
        return None

    def __call__(self, tally: Tally, messages: Sequence[dict], tools: object = None) -> Masked:
        loss = self.loss
        turns = [dict(m) for m in messages]
        if loss.drop_system_message and turns and turns[0].get("role") == "system":
            turns = turns[1:]
        extra: dict[str, object] = dict(loss.template_kwargs)
        whole = tally.render(turns, tools, extra=extra)
        tally.seen.append(whole.text)
        encoded = tally.tokenizer.encode(whole.text)
        ids = encoded.ids
        eos = tally.spec.eos
        eos_at = _marks(whole.text, encoded, {eos} if eos else set())
        eot_at = _marks(whole.text, encoded, set(loss.eot_tokens) if loss.eot_tokens is not None else {eos} if eos else set())
        labels = [False] * len(ids)
        trained_roles = {DEFAULT_ROLES.get(r, r) for r in loss.roles_to_train}
        last = {"eot": -1, "eos": -1}
        for index, turn in enumerate(turns):
            flag = turn.get(loss.message_field_training) if loss.message_field_training else None
            should = bool(flag) if flag is not None else (loss.train_on_inputs or turn.get("role") in trained_roles)
            if not should and loss.train_on_eos != "all" and loss.eot != "all":
                continue
            start, end = self.find_turn(tally, turns, index, tools, extra)
            if should and start != -1 and end != -1:
                for i in range(start, min(end, len(labels))):
                    labels[i] = True
            for kind, found, option in (("eot", eot_at, loss.eot), ("eos", eos_at, loss.train_on_eos)):
                at = _first(found, end, len(ids))
                if at != -1 and abs(at - end) <= EOS_REACH:
                    last[kind] = at
                    if option == "all" or (option == "turn" and should):
                        labels[at] = True
        for kind, option in (("eot", loss.eot), ("eos", loss.train_on_eos)):
            if option == "last" and last[kind] != -1:
                labels[last[kind]] = True
        return _masked(whole.text, encoded, labels, eos)

    def find_turn(self, tally: Tally, turns: list[dict], index: int, tools: object, extra: dict[str, object]) -> tuple[int, int]:
        """The tokens of turn `index`'s content (ChatTemplateStrategy.find_turn): where the
        conversation up to it and the same with a dummy content first and last differ."""
        dummy = {"role": turns[index].get("role"), "content": DUMMY}
        last = {"real_last_index": len(turns) - 1} if len(turns) - 1 else {}  # passed only when truthy, as there
        given = {**extra, **last}
        with_dummy = tally.tokenizer.encode(tally.render([*turns[:index], dummy], tools, extra=given).text).ids
        with_turn = tally.tokenizer.encode(tally.render(turns[: index + 1], tools, extra=given).text).ids
        if not with_dummy or not with_turn:
            return -1, -1
        shortest = min(len(with_dummy), len(with_turn))
        start = next((i for i in range(shortest) if with_dummy[i] != with_turn[i]), None)
        if start is None:
            return -1, -1
        end = next((len(with_turn) - i for i in range(shortest) if with_dummy[-1 - i] != with_turn[-1 - i]), None)
        if end is None or end <= start:
            return -1, -1
        return start, end

    def rule(self, shape: str) -> str:
        """What trains, in words (the estimate's record rule)."""
        loss = self.loss
        if shape == "alpaca":
            inputs = " and the prompt too (train_on_inputs)" if loss.train_on_inputs else ""
            return (f"1 row = 1 sequence; axolotl's Alpaca prompt (prompters.py AlpacaPrompter): the output and its eos "
                    f"train{inputs}")
        who = "every turn (train_on_inputs)" if loss.train_on_inputs else f"the turns of {', '.join(loss.roles_to_train) or 'no role'}"
        eos = {"turn": "each with the end-of-turn token after it", "all": "and every end-of-turn token",
               "last": "and the last end-of-turn token", "none": "without their end-of-turn token"}.get(loss.eot, "")
        return (f"1 row = 1 sequence; axolotl's chat_template strategy: {who} train, {eos} (roles_to_train, "
                f"train_on_eos {loss.train_on_eos}{f', train_on_eot {loss.eot}' if loss.train_on_eot else ''})")

    def fields(self, tally: Tally, record: dict, shape: str) -> Masked | None:
        """An Alpaca row (None: another shape, read as a conversation)."""
        return self.alpaca(tally, record) if shape == "alpaca" else None

    def alpaca(self, tally: Tally, record: dict) -> Masked:
        """An Alpaca row as axolotl's `type: alpaca` trains it (prompt_tokenizers.py
        InstructionPromptTokenizingStrategy.tokenize_prompt with prompters.py AlpacaPrompter,
        instruct style): the prompt (the system line, "### Instruction:", the input if any,
        "### Response:") tokenized alone and masked unless train_on_inputs; the output tokenized
        alone, its eos appended, trained. Each part is cut at sequence_len tokens by the tokenizer."""
        instruction = _text(record.get("instruction"))
        given = _text(record.get("input"))
        output = _text(record.get("output"))
        prompt = alpaca_prompt(instruction, given)
        tally.seen.append(prompt + output)
        limit = self.loss.sequence_len
        first, eos = tally.text_bos, tally.spec.eos
        head, head_cut = _tokens(tally, prompt, limit, bos=first)
        # strip_bos drops the first token when it is the tokenizer's bos_token: not the model's own after a new one
        tail, tail_cut = _tokens(tally, output, limit, bos=first, strip_bos=first == tally.spec.bos, eos=eos)
        heads, tails = sum(n for _, n in head), sum(n for _, n in tail)
        labels = [self.loss.train_on_inputs] * heads + [True] * tails
        text = prompt + output + (eos if tails and eos else "")
        spans = [(0 if self.loss.train_on_inputs else len(prompt), len(text))] if tails else []
        masked = Masked(len(labels), sum(labels), text, spans, False, eos, False, pairs_of_mask(labels))
        if not head_cut and not tail_cut:  # each part tokenized on its own, as it is: what `ftlint show` marks
            masked.pieces = [(t, n, self.loss.train_on_inputs) for t, n in head] + [(t, n, True) for t, n in tail]
        return masked

    def title(self, shape: str) -> str:
        """What makes records of this shape instead of the model's chat template ("": the template)."""
        return "axolotl's Alpaca prompt (prompters.py AlpacaPrompter, instruct style)" if shape == "alpaca" else ""


# prompters.py AlpacaPrompter (instruct style: match_prompt_style)
ALPACA_SYSTEM = ("Below is an instruction that describes a task, paired with an input that provides further context. "
                 "Write a response that appropriately completes the request.")
ALPACA_SYSTEM_NO_INPUT = "Below is an instruction that describes a task. Write a response that appropriately completes the request."


def alpaca_prompt(instruction: str, given: str) -> str:
    """AlpacaPrompter._build_result without the output: the system line and the turn."""
    if given:
        return f"{ALPACA_SYSTEM}\n\n### Instruction:\n{instruction}\n\n### Input:\n{given}\n\n### Response:\n"
    return f"{ALPACA_SYSTEM_NO_INPUT}\n\n### Instruction:\n{instruction}\n\n### Response:\n"


def _text(value: object) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)


def _tokens(tally: Tally, text: str, limit: int, bos: str = "", strip_bos: bool = False,
            eos: str = "") -> tuple[list[tuple[str, int]], bool]:
    """PromptTokenizingStrategy._tokenize: the tokenizer's ids of `text` (its bos first when it
    adds one), cut at `limit`, an eos appended when the last is not one and there is room, a
    leading bos dropped with strip_bos; an empty text is no token at all. As (text, tokens) pieces
    in order, and whether the cut at `limit` took some of the text's own tokens."""
    if not text:
        return [], False
    whole = tally.count_pieces(text) + (1 if bos else 0)
    n = min(whole, limit)
    ends_in_eos = bool(eos) and text.endswith(eos) and whole <= limit
    pieces = [(bos, 1)] if bos and not strip_bos else []
    pieces.append((text, n - (1 if bos else 0)))
    if eos and not ends_in_eos and n < limit:
        pieces.append((eos, 1))
    return [(t, k) for t, k in pieces if k > 0], whole > limit


def _marks(text: str, encoded: Encoding, tokens: set[str]) -> list[int]:
    """The positions of the tokens that are one of the added tokens `tokens` (an added token is
    its whole text: tiktoken's splitter or the tokenizers library gives it one token)."""
    if not tokens:
        return []
    return [i for i, (start, end) in enumerate(zip(encoded.starts, encoded.ends, strict=True)) if text[start:end] in tokens]


def _first(positions: list[int], start: int, n: int) -> int:
    """find_first_eot_token: the first position from `start` on, read as Python's range does (a
    start of -1 looks at the last token first, and a match there reads as "none")."""
    if start < 0 and positions and positions[-1] == n - 1:
        return -1
    return next((p for p in positions if p >= max(start, 0)), -1)


def _masked(text: str, encoded: Encoding, labels: list[bool], eos: str) -> Masked:
    spans: list[tuple[int, int]] = []
    for i, on in enumerate(labels):
        if not on:
            continue
        start, end = encoded.starts[i], encoded.ends[i]
        if spans and spans[-1][1] >= start:
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
        else:
            spans.append((start, end))
    return Masked(len(labels), sum(labels), text, spans, False, eos, False, pairs_of_mask(labels))

