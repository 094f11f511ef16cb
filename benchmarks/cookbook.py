"""Reference: the OpenAI cookbook's way (Chat_finetuning_data_prep.ipynb), as scripts copy it,
written here from the notebook's description, step by step:

1. load every line into memory with json.loads;
2. a format-error pass: each example a dict with a messages list; each message with role and
   content, no unknown keys, a known role, string content; an assistant message somewhere;
3. token counts with `encoding.encode(value)` (tiktoken's default: it also searches every text
   for special-token spellings): 3 per message plus every value, 1 more for a name, 3 to prime;
   assistant contents encoded again for the assistant-token count; examples without a system
   or user message counted; examples over the limit counted;
4. distributions of those figures (min, max, mean, median, 5th and 95th percentiles).

Non-string values (tool calls, content parts) are skipped where the notebook would crash on them.
"""

import json
import statistics
import sys
from collections import defaultdict

from ftlint.tokens import get_encoding

encoding = get_encoding("o200k_base")

with open(sys.argv[1], encoding="utf-8") as fh:
    dataset = [json.loads(line) for line in fh]

format_errors: dict[str, int] = defaultdict(int)
for example in dataset:
    if not isinstance(example, dict):
        format_errors["data_type"] += 1
        continue
    messages = example.get("messages")
    if not messages:
        format_errors["missing_messages_list"] += 1
        continue
    for message in messages:
        if "role" not in message or "content" not in message:
            format_errors["message_missing_key"] += 1
        if any(key not in ("role", "content", "name", "function_call", "weight") for key in message):
            format_errors["message_unrecognized_key"] += 1
        if message.get("role") not in ("system", "user", "assistant", "function"):
            format_errors["unrecognized_role"] += 1
        content = message.get("content")
        if not isinstance(content, str) and "function_call" not in message:
            format_errors["missing_content"] += 1
    if not any(message.get("role") == "assistant" for message in messages):
        format_errors["example_missing_assistant_message"] += 1


def tokens_of_messages(messages: list) -> int:
    n = 3
    for message in messages:
        n += 3
        for key, value in message.items():
            if isinstance(value, str):
                n += len(encoding.encode(value))
                if key == "name":
                    n += 1
    return n


def assistant_tokens(messages: list) -> int:
    return sum(len(encoding.encode(m["content"])) for m in messages
               if m.get("role") == "assistant" and isinstance(m.get("content"), str))


missing_system = missing_user = 0
n_messages, lengths, assistant_lengths = [], [], []
for example in dataset:
    messages = example.get("messages", [])
    missing_system += not any(m.get("role") == "system" for m in messages)
    missing_user += not any(m.get("role") == "user" for m in messages)
    n_messages.append(len(messages))
    lengths.append(tokens_of_messages(messages))
    assistant_lengths.append(assistant_tokens(messages))
too_long = sum(n > 16385 for n in lengths)


def distribution(values: list[int]) -> tuple:
    cuts = statistics.quantiles(values, n=20) if len(values) > 1 else [values[0]] * 19
    return min(values), max(values), statistics.mean(values), statistics.median(values), cuts[0], cuts[-1]


print(len(dataset), dict(format_errors), missing_system, missing_user, too_long, sum(lengths), sum(assistant_lengths))
for figures in (n_messages, lengths, assistant_lengths):
    print(distribution(figures))
