"""Deterministic generator of realistic OpenAI chat fine-tuning data for benchmarks.

Mix (by record): plain multi-turn chats with a handful of repeated system prompts, tool-calling
conversations with repeated tool definitions, content-part messages with image URLs, long
records of thousands of tokens; and, laid over them, e-mail addresses, URLs, phone numbers, code and non-Latin
text (Chinese, Japanese, Russian, Arabic). The shares (SHARES below) are those measured by
`benchmarks/proportions.py` on 4,554 public records (LLaMA-Factory's data/ demo sets, FastChat's
dummy conversations, torchtune's Alpaca sample, the OpenAI cookbook's two files): see
docs/performance.md. Same seed and size, same bytes.

The near-limit tail (--tail, default 1% of records): records of 50-100% of a 65,536-token
per-example limit (uniform; o200k_base tokens by ftlint's convention), each a long document (prose,
code or Chinese: benchmarks/longtext.py) with a question and an answer, as long-context SFT sets
have them. Those sets are of this length: LongAlign-10k (THUDM, arXiv 2401.18058) holds 10,000
instruction records "of 8k-64k in length" from nine long-text sources (papers, books, code and
others), about 10% of them Chinese. Its distribution within that range is not published where it
could be read here, so --long-context draws lengths log-uniformly over 8,192-65,536 tokens for
10% of records, 10% of those Chinese and 15% code (an assumption, as the 1% share and the uniform
50-100% of the default tail are). The tail's records come from their own random stream, so the
other records are the same bytes with or without it.

    python benchmarks/generate.py OUT.jsonl --mb 40 [--seed 7] [--tail 0.01 | --long-context]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

WORDS = ["the", "model", "data", "training", "record", "token", "batch", "epoch", "learning", "rate", "schedule", "warmup", "assistant", "user", "system", "message", "answer", "question", "bicycle", "repair", "order", "shipping", "invoice", "account", "password", "reset", "weather", "forecast", "city", "river", "mountain", "coffee", "recipe", "garden", "window", "network", "server", "latency", "cache", "query", "database", "index", "table", "column", "value", "error", "retry", "timeout", "budget", "price", "discount", "customer"]
FOREIGN = [
    "Le modèle apprend à répondre brièvement et poliment aux questions des clients.",
    "Die Lieferung erfolgt innerhalb von drei Werktagen nach Zahlungseingang.",
    "El pedido fue enviado ayer y llegará el próximo lunes por la mañana.",
    "ご注文ありがとうございます。商品は明日発送いたします。",
    "我们的客服团队会在二十四小时内回复您的邮件。",
    "Ваш заказ был отправлен, номер отслеживания придёт по почте.",
    "طلبك قيد المعالجة وسيتم شحنه قريبا.",
]
SYSTEM_PROMPTS = [
    "You are a helpful assistant for an online bicycle shop. Answer briefly and politely.",
    "You are a support agent. Follow the policy: " + " ".join(f"Rule {i}: be accurate about refunds, shipping and warranty terms." for i in range(12)),
    "You translate customer e-mails into English and summarise them in one sentence.",
    "You are a careful SQL assistant. Return only the query, no commentary.",
    "You are a travel planner. Ask for missing details before proposing an itinerary. " * 6,
]
TOOLS = [
    [{"type": "function", "function": {"name": n, "description": f"{n.replace('_', ' ')} for the customer",
      "parameters": {"type": "object", "properties": {p: {"type": "string", "description": f"the {p}"} for p in ps},
                     "required": list(ps[:1])}}}
     for n, ps in spec]
    for spec in (
        [("get_order_status", ("order_id",)), ("refund_order", ("order_id", "reason")), ("update_address", ("order_id", "street", "city", "zip"))],
        [("search_flights", ("origin", "destination", "date")), ("book_hotel", ("city", "check_in", "nights")), ("get_weather", ("city",))],
        [("run_sql", ("query",)), ("describe_table", ("table",))],
    )
]


# share of records holding each kind, as measured on the public samples (pooled); phone numbers
# were 2 in 4,554 (0.04%), raised to 0.1% so that the path is exercised at every size
SHARES = {"tool_call": 0.165, "image_url": 0.004, "non_latin": 0.318, "code": 0.049, "url": 0.014, "email": 0.006,
          "phone": 0.001}
LONG = 0.02  # long records (of thousands of tokens; the near-limit tail is Tail below)
NON_LATIN = [s for s in FOREIGN if any(ord(ch) > 0x24F for ch in s)]
CODE = ["Here is the fix:\n```python\ndef retry(call, times=3):\n    for attempt in range(times):\n        try:\n"
        "            return call()\n        except TimeoutError:\n            continue\n    raise\n```",
        "Run this query:\n```sql\nSELECT customer, SUM(price) AS total\nFROM orders\nWHERE shipped = 1\nGROUP BY customer;\n```",
        "```js\nfunction debounce(fn, ms) {\n  let t;\n  return (...a) => { clearTimeout(t); t = setTimeout(() => fn(...a), ms); };\n}\n```"]


def sentence(rng: random.Random, lo: int = 5, hi: int = 30) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(lo, hi))]
    words[0] = words[0].capitalize()
    return " ".join(words) + rng.choice([".", "?", "!", "."])


def text(rng: random.Random, sentences: int, non_latin: bool = False) -> str:
    if non_latin:
        return " ".join(rng.choice(NON_LATIN) for _ in range(sentences))
    parts = [sentence(rng) for _ in range(sentences)]
    if rng.random() < 0.05:
        parts.append(rng.choice(FOREIGN[:3]))  # a Latin-script sentence in French, German or Spanish
    return " ".join(parts)


def chat(rng: random.Random, nl: bool) -> dict:
    messages: list[dict] = []
    if rng.random() < 0.85:
        messages.append({"role": "system", "content": rng.choice(SYSTEM_PROMPTS)})
    for _ in range(rng.choice((1, 1, 2, 3, 4))):
        messages.append({"role": "user", "content": text(rng, rng.randint(1, 4), nl)})
        messages.append({"role": "assistant", "content": text(rng, rng.randint(1, 8), nl)})
    return {"messages": messages}


def tool_chat(rng: random.Random, n: int, nl: bool) -> dict:
    tools = rng.choice(TOOLS)
    tool = rng.choice(tools)["function"]
    call_id = f"call_{n:08d}"
    args = {p: rng.choice(WORDS) for p in tool["parameters"]["properties"]}
    return {"messages": [
        {"role": "system", "content": SYSTEM_PROMPTS[0]},
        {"role": "user", "content": text(rng, 2, nl)},
        {"role": "assistant", "tool_calls": [{"id": call_id, "type": "function",
                                               "function": {"name": tool["name"], "arguments": json.dumps(args)}}]},
        {"role": "tool", "tool_call_id": call_id, "content": json.dumps({"status": rng.choice(WORDS), "detail": sentence(rng)})},
        {"role": "assistant", "content": text(rng, 2, nl)},
    ], "tools": tools, "parallel_tool_calls": False}


def parts_chat(rng: random.Random, n: int, nl: bool) -> dict:
    return {"messages": [
        {"role": "user", "content": [{"type": "text", "text": text(rng, 2, nl)},
                                     {"type": "image_url", "image_url": {"url": f"https://img.example.com/{n}.jpg", "detail": "low"}}]},
        {"role": "assistant", "content": [{"type": "text", "text": text(rng, 3, nl)}]},
    ]}


def long_chat(rng: random.Random, nl: bool) -> dict:
    return {"messages": [{"role": "system", "content": SYSTEM_PROMPTS[1]},
                         {"role": "user", "content": text(rng, rng.randint(100, 600), nl)},
                         {"role": "assistant", "content": text(rng, rng.randint(20, 200), nl)}]}


def extras(rng: random.Random, n: int) -> list[tuple[str, str]]:
    """What is laid into a record's turns: (role, sentence), each kind with its share."""
    found = []
    if rng.random() < SHARES["email"]:
        found.append(("user", f"You can write to me at anna.schmidt{n}@example.org if that is easier."))
    if rng.random() < SHARES["url"]:
        found.append((rng.choice(("user", "assistant")), f"The guide is at https://docs.example.com/guide/{n}?lang=en for details."))
    if rng.random() < SHARES["phone"]:
        found.append(("user", f"Call me on +1 415 555 {n % 10000:04d} after six."))
    if rng.random() < SHARES["code"]:
        found.append(("assistant", rng.choice(CODE)))
    return found


def lay(record: dict, role: str, extra: str) -> None:
    """Append `extra` to the last string content of a `role` turn (a text part for content parts)."""
    for message in reversed(record["messages"]):
        if message["role"] != role:
            continue
        content = message.get("content")
        if isinstance(content, str):
            message["content"] = f"{content} {extra}"
            return
        if isinstance(content, list):
            content[0]["text"] = f"{content[0]['text']} {extra}"
            return


def record(rng: random.Random, n: int) -> dict:
    roll, nl = rng.random(), rng.random() < SHARES["non_latin"]
    if roll < SHARES["tool_call"]:
        out = tool_chat(rng, n, nl)
    elif roll < SHARES["tool_call"] + SHARES["image_url"]:
        out = parts_chat(rng, n, nl)
    elif roll < SHARES["tool_call"] + SHARES["image_url"] + LONG:
        out = long_chat(rng, nl)
    else:
        out = chat(rng, nl)
    for role, extra in extras(rng, n):
        lay(out, role, extra)
    return out


@dataclass(frozen=True)
class Tail:
    """Which records are long, and how long: a share of records, each of a token count drawn
    between lo and hi (fractions of `limit`), uniformly or (log) log-uniformly."""

    share: float = 0.01
    lo: float = 0.5
    hi: float = 1.0
    log: bool = False
    zh: float = 0.1  # of the long records, Chinese documents
    code: float = 0.15  # ... and code
    limit: int = 65_536


NEAR_LIMIT = Tail()
LONG_CONTEXT = Tail(share=0.1, lo=8_192 / 65_536, log=True)


def tail_chat(rng: random.Random, tail: Tail) -> dict:
    """A long-context record: a document, a question about it, an answer; its tokens (ftlint's
    convention, o200k_base) between tail.lo and tail.hi of the limit."""
    from longtext import Writer, document

    from ftlint.formats import get_format
    from ftlint.tokens import TokenCounter

    counter = _counter()
    frac = math.exp(rng.uniform(math.log(tail.lo), math.log(tail.hi))) if tail.log else rng.uniform(tail.lo, tail.hi)
    target = min(max(int(frac * tail.limit), int(tail.lo * tail.limit) + 8), int(tail.hi * tail.limit))
    roll = rng.random()
    kind = "zh" if roll < tail.zh else "code" if roll < tail.zh + tail.code else "prose"
    answer_tokens = min(target // 8, rng.randint(100, 4000))
    system = rng.choice(SYSTEM_PROMPTS) if rng.random() < 0.5 else None
    question = Writer(rng, "prose")._sentence(8, 25)
    budget = target - answer_tokens - counter.count(question) - 40 - (counter.count(system) if system else 0)
    doc = document(rng, kind, budget, counter.count)
    answer = document(rng, "zh" if kind == "zh" else "prose", answer_tokens, counter.count)
    messages = [{"role": "system", "content": system}] if system else []
    messages += [{"role": "user", "content": f"{doc}\n\n{question}"}, {"role": "assistant", "content": answer}]
    out = {"messages": messages}
    assert isinstance(counter, TokenCounter)
    chat, writer = get_format("openai-chat"), Writer(rng, "prose")
    while (tokens := chat.figures(out, counter).records[0].tokens) < target - 4:  # topped up to the target
        more = f"{answer} {writer._sentence(4, 12) if tokens < target - 64 else writer.draw(1)[0]}"
        if tokens - counter.count(answer) + counter.count(more) <= target:
            messages[-1]["content"] = answer = more
    assert tail.lo * tail.limit <= tokens <= tail.hi * tail.limit, (tokens, target)
    return out


@cache
def _counter() -> object:
    from ftlint.tokens import TokenCounter

    return TokenCounter("o200k_base")


def generate(path: str, megabytes: float, seed: int = 7, tail: Tail | None = None) -> int:
    """Records to `path` until it holds `megabytes`; with `tail`, its long records among them
    (from a random stream of their own: the others are the same records as without it)."""
    rng = random.Random(seed)
    long_rng = random.Random(seed * 7919 + 1)
    limit = int(megabytes * 1024 * 1024)
    written = n = lines = 0
    with open(path, "w", encoding="utf-8") as fh:
        while written < limit:
            if tail is not None and long_rng.random() < tail.share:
                value = tail_chat(long_rng, tail)
            else:
                value = record(rng, n)
                n += 1
            line = json.dumps(value, ensure_ascii=False) + "\n"
            fh.write(line)
            written += len(line.encode("utf-8"))
            lines += 1
    return lines


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--mb", type=float, default=40)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--tail", type=float, default=NEAR_LIMIT.share, help="share of records at 50-100%% of the "
                        "65,536-token limit (0: none)")
    parser.add_argument("--long-context", action="store_true", help="instead: 10%% of records of 8,192-65,536 tokens")
    args = parser.parse_args()
    chosen = LONG_CONTEXT if args.long_context else Tail(share=args.tail) if args.tail > 0 else None
    print(generate(args.out, args.mb, args.seed, chosen), "records")
