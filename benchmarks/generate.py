"""Deterministic generator of realistic OpenAI chat fine-tuning data for benchmarks.

Mix (by record): plain multi-turn chats with a handful of repeated system prompts, tool-calling
conversations with repeated tool definitions, content-part messages with images, non-English
text, and a long-record tail. Same seed and size, same bytes.

    python benchmarks/generate.py OUT.jsonl --mb 40 [--seed 7]
"""

from __future__ import annotations

import argparse
import json
import random

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


def sentence(rng: random.Random, lo: int = 5, hi: int = 30) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(lo, hi))]
    words[0] = words[0].capitalize()
    return " ".join(words) + rng.choice([".", "?", "!", "."])


def text(rng: random.Random, sentences: int) -> str:
    parts = [sentence(rng) for _ in range(sentences)]
    if rng.random() < 0.1:
        parts.append(rng.choice(FOREIGN))
    return " ".join(parts)


def chat(rng: random.Random) -> dict:
    messages: list[dict] = []
    if rng.random() < 0.85:
        messages.append({"role": "system", "content": rng.choice(SYSTEM_PROMPTS)})
    for _ in range(rng.choice((1, 1, 2, 3, 4))):
        messages.append({"role": "user", "content": text(rng, rng.randint(1, 4))})
        messages.append({"role": "assistant", "content": text(rng, rng.randint(1, 8))})
    return {"messages": messages}


def tool_chat(rng: random.Random, n: int) -> dict:
    tools = rng.choice(TOOLS)
    tool = rng.choice(tools)["function"]
    call_id = f"call_{n:08d}"
    args = {p: rng.choice(WORDS) for p in tool["parameters"]["properties"]}
    return {"messages": [
        {"role": "system", "content": SYSTEM_PROMPTS[0]},
        {"role": "user", "content": text(rng, 2)},
        {"role": "assistant", "tool_calls": [{"id": call_id, "type": "function",
                                               "function": {"name": tool["name"], "arguments": json.dumps(args)}}]},
        {"role": "tool", "tool_call_id": call_id, "content": json.dumps({"status": rng.choice(WORDS), "detail": sentence(rng)})},
        {"role": "assistant", "content": text(rng, 2)},
    ], "tools": tools, "parallel_tool_calls": False}


def parts_chat(rng: random.Random, n: int) -> dict:
    return {"messages": [
        {"role": "user", "content": [{"type": "text", "text": text(rng, 2)},
                                     {"type": "image_url", "image_url": {"url": f"https://img.example.com/{n}.jpg", "detail": "low"}}]},
        {"role": "assistant", "content": [{"type": "text", "text": text(rng, 3)}]},
    ]}


def foreign_chat(rng: random.Random) -> dict:
    return {"messages": [{"role": "user", "content": " ".join(rng.choice(FOREIGN) for _ in range(rng.randint(2, 6)))},
                         {"role": "assistant", "content": " ".join(rng.choice(FOREIGN) for _ in range(rng.randint(2, 8)))}]}


def long_chat(rng: random.Random) -> dict:
    return {"messages": [{"role": "system", "content": SYSTEM_PROMPTS[1]},
                         {"role": "user", "content": text(rng, rng.randint(100, 600))},
                         {"role": "assistant", "content": text(rng, rng.randint(20, 200))}]}


def record(rng: random.Random, n: int) -> dict:
    roll = rng.random()
    if roll < 0.60:
        return chat(rng)
    if roll < 0.80:
        return tool_chat(rng, n)
    if roll < 0.90:
        return parts_chat(rng, n)
    if roll < 0.98:
        return foreign_chat(rng)
    return long_chat(rng)


def generate(path: str, megabytes: float, seed: int = 7) -> int:
    rng = random.Random(seed)
    limit = int(megabytes * 1024 * 1024)
    written = n = 0
    with open(path, "w", encoding="utf-8") as fh:
        while written < limit:
            line = json.dumps(record(rng, n), ensure_ascii=False) + "\n"
            fh.write(line)
            written += len(line.encode("utf-8"))
            n += 1
    return n


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--mb", type=float, default=40)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print(generate(args.out, args.mb, args.seed), "records")
