"""Reference: the OpenAI cookbook's way (Chat_finetuning_data_prep.ipynb), as scripts copy it:
load every line into memory, json.loads, encode every string value of every message, then
encode assistant content again for the assistant-token count. Written here from its
description; non-string values are skipped instead of crashing."""

import json
import sys

from ftlint.tokens import get_encoding

encode = get_encoding("o200k_base").encode

with open(sys.argv[1], encoding="utf-8") as fh:
    dataset = [json.loads(line) for line in fh]

lengths, assistant = [], []
for example in dataset:
    n = 3
    for message in example.get("messages", []):
        n += 3
        for key, value in message.items():
            if isinstance(value, str):
                n += len(encode(value, disallowed_special=()))
                if key == "name":
                    n += 1
    lengths.append(n)
    assistant.append(sum(len(encode(m["content"], disallowed_special=())) for m in example.get("messages", [])
                         if m.get("role") == "assistant" and isinstance(m.get("content"), str)))
print(len(dataset), sum(lengths), sum(assistant))
