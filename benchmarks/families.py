"""Tokens per second of each tokenizer family beside o200k_base, in one run, on the same texts:
the message strings of the benchmark file (CPU time of encode_ordinary, NFC included where the
family normalises, fastest of --repeat passes; interleaved so drift hits every family alike).

    python benchmarks/families.py FILE [--texts 20000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import time
import unicodedata

from ftlint.tokens import FAMILIES, get_encoding, missing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file")
    parser.add_argument("--texts", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    texts: list[str] = []
    with open(args.file, "rb") as fh:
        for raw in fh:
            for m in json.loads(raw).get("messages", []):
                if isinstance(m, dict) and isinstance(m.get("content"), str):
                    texts.append(m["content"])
            if len(texts) >= args.texts:
                break
    size = sum(len(t.encode()) for t in texts)
    families = [f for f in FAMILIES.values() if missing(f.name) is None]
    encoders = {f.name: (get_encoding(f.name).encode_ordinary, f.nfc) for f in families}
    best = dict.fromkeys(encoders, float("inf"))
    tokens = dict.fromkeys(encoders, 0)
    for _ in range(args.repeat):
        for name, (encode, nfc) in encoders.items():
            start = time.process_time()
            n = sum(len(encode(unicodedata.normalize("NFC", t) if nfc else t)) for t in texts)
            best[name] = min(best[name], time.process_time() - start)
            tokens[name] = n
    base = tokens["o200k_base"] / best["o200k_base"]
    print(f"{len(texts):,} texts, {size / 1e6:.1f} MB; CPU seconds, fastest of {args.repeat}")
    print(f"  {'family':16} {'tokens':>10} {'seconds':>8} {'Mtok/s':>7} {'tok/s ÷ o200k':>14} {'tokens ÷ o200k':>15}")
    for name in encoders:
        rate = tokens[name] / best[name]
        print(f"  {name:16} {tokens[name]:10,} {best[name]:8.2f} {rate / 1e6:7.2f} {rate / base:14.2f} "
              f"{tokens[name] / tokens['o200k_base']:15.3f}")


if __name__ == "__main__":
    main()
