"""The tokenizers library's path against the tiktoken path, on the same tokenizer.json and the
same data, in one run: the strings of a benchmark file counted one by one (OpenAI's convention,
`TokenCounter.count`) and its conversations rendered with a template and counted whole (what a
model folder's records cost), CPU time, fastest of --repeat passes, interleaved.

The tokenizer.json is Qwen 2's shipped ranks made into one by transformers' TikTokenConverter
(Qwen 3's added tokens, NFC), so the two paths count the same tokens: the script checks that
they agree before it times them. (transformers is a test dependency; this is not run in CI.)

    python benchmarks/library.py FILE [--records 3000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


def _folder(where: Path) -> Path:
    from transformers import PreTrainedTokenizerFast

    from mask_reference import hf_tokenizer

    tok = PreTrainedTokenizerFast(tokenizer_object=hf_tokenizer("qwen2").backend_tokenizer)
    tok.eos_token = "<|im_end|>"
    tok.chat_template = (ROOT / "ftlint" / "chat" / "templates" / "qwen3.jinja").read_text(encoding="utf-8")
    tok.save_pretrained(str(where))
    return where


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file")
    parser.add_argument("--records", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from ftlint.chat import count_rendered
    from ftlint.chat.source import read_template
    from ftlint.chat.tally import Tally
    from ftlint.tokens import TokenCounter, files, library_of
    from ftlint.tokens.library import Library

    records = []
    with open(args.file, "rb") as fh:
        for raw in fh:
            records.append(json.loads(raw))
            if len(records) >= args.records:
                break
    texts = [m["content"] for r in records for m in r.get("messages", []) if isinstance(m, dict) and isinstance(m.get("content"), str)]
    folder = _folder(Path(tempfile.mkdtemp(prefix="ftlint-library-")))
    name = f"path:{folder}"
    tiktoken_counter = TokenCounter(name)
    assert library_of(name) is None  # the folder is byte-level BPE: tiktoken runs it
    loaded = files.load_file(str(folder))
    doc = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
    library = Library("bench", doc, (folder / "tokenizer.json").read_text(encoding="utf-8"), loaded.added, False)
    tally = Tally(f"file:{folder}", tiktoken_counter, dt.date(2026, 12, 1), file=read_template(str(folder)))
    rendered = [tally.render(r["messages"], r.get("tools")).text for r in records if r.get("messages")]

    def tiktoken_whole(text: str) -> int:  # as Tally counts a rendered text, without TokenCounter's cache
        return count_rendered(text, tally.spec.splitter, tiktoken_counter._length)

    runs: dict[str, tuple[Callable[[str], int], list[str]]] = {
        "strings, tiktoken": (tiktoken_counter._length, texts), "strings, tokenizers": (library.count, texts),
        "conversations, tiktoken": (tiktoken_whole, rendered), "conversations, tokenizers": (library.count_whole, rendered)}
    best = dict.fromkeys(runs, float("inf"))
    tokens = dict.fromkeys(runs, 0)
    for _ in range(args.repeat):
        for label, (count, items) in runs.items():
            start = time.process_time()
            tokens[label] = sum(count(t) for t in items)
            best[label] = min(best[label], time.process_time() - start)
    assert tokens["strings, tiktoken"] == tokens["strings, tokenizers"], tokens
    assert tokens["conversations, tiktoken"] == tokens["conversations, tokenizers"], tokens
    print(f"{len(texts):,} strings, {len(rendered):,} conversations; CPU seconds, fastest of {args.repeat}")
    for label in runs:
        print(f"  {label:26} {tokens[label]:>11,} tokens {best[label]:8.2f} s {tokens[label] / best[label] / 1e6:6.2f} Mtok/s")
    for what in ("strings", "conversations"):
        print(f"  {what}: the tokenizers library takes {best[f'{what}, tokenizers'] / best[f'{what}, tiktoken']:.2f}x tiktoken's time")


if __name__ == "__main__":
    main()
