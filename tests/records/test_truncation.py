"""Past the trainer's max length (issue 26): what each trainer does with a record longer than its
max length, in every figure and finding. Every figure is derived here from the data: tokens by
tiktoken (o200k_base, the ranks ftlint ships) under ftlint's token convention (docs/estimate.md:
3 a record, 3 + role + what it says a turn, the tools' compact JSON), the trained tokens placed as
the convention places them (each turn's overhead before what it says), then cut as the trainer's
own rule says, written out below."""

from __future__ import annotations

import json
import math
from pathlib import Path

import ftlint
from conftest import FIXTURES, run
from ftlint.tokens import get_encoding

ENC = get_encoding("o200k_base")
HELD_OUT = FIXTURES / "truncation" / "drone_heldout.jsonl"  # 20 real conversations no rule was written against
TOY = FIXTURES / "truncation" / "toy_chat_fine_tuning.jsonl"  # line 5: an 8,000-token answer
GLAIVE = FIXTURES / "datasets" / "llama-factory" / "glaive_toolcall_en_demo.sample.json"
SHAREGPT_ROLES = {"human": "user", "gpt": "assistant", "function_call": "assistant", "observation": "tool"}


def n(text: object) -> int:
    return len(ENC.encode_ordinary(text)) if isinstance(text, str) else 0


def said(message: dict) -> int:
    """What a message says: its content and its tool calls' names and arguments."""
    calls = message.get("tool_calls") or []
    return n(message.get("content")) + sum(n(c["function"]["name"]) + n(c["function"]["arguments"]) for c in calls)


def compact(value: object) -> int:
    return n(json.dumps(value, separators=(",", ":"), ensure_ascii=False)) if value else 0


def layout(messages: list[dict], tools: object = None) -> list[tuple[int, int]]:
    """(untrained, trained) runs of a conversation whose assistant turns train: the record's 3 and
    its tools' compact JSON first, then each turn's 3 + role before what it says."""
    untrained = 3 + compact(tools)
    pairs = []
    for m in messages:
        overhead, body = 3 + n(m["role"]), said(m)
        if m["role"] == "assistant":
            pairs.append((untrained + overhead, body))
            untrained = 0
        else:
            untrained += overhead + body
    return pairs + ([(untrained, 0)] if untrained else [])


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def sharegpt(record: dict) -> tuple[list[dict], object]:
    messages = [{"role": SHAREGPT_ROLES[t["from"]], "content": t["value"]} for t in record["conversations"]]
    return messages, record.get("tools")  # LLaMA-Factory's tools string, counted as the JSON string it is


def warnings(output: str, code: str) -> list[str]:
    return [line for line in output.splitlines() if f": {code} " in line]


def test_trl_keep_start_cuts_the_trainable_tokens_of_a_held_out_file() -> None:
    # TRL's default loss trains every token of a messages row; max_length keeps the first 512
    records = lines(HELD_OUT)
    tokens = [3 + compact(r["tools"]) + sum(3 + n(m["role"]) + said(m) for m in r["messages"]) for r in records]
    e = ftlint.estimate(str(HELD_OUT), trainer="trl", max_seq_len=512)
    assert e.counts.trainable_tokens_in_file == sum(tokens) == 14_877  # what main reported as trainable
    assert e.counts.trainable_tokens == e.counts.tokens == sum(min(t, 512) for t in tokens) == 20 * 512
    assert e.truncation is not None and e.truncation.source == "--max-seq-len"
    assert (e.truncation.records, e.truncation.tokens, e.truncation.trainable_cut) == (
        sum(t > 512 for t in tokens), sum(t - 512 for t in tokens if t > 512), sum(tokens) - 20 * 512)
    out = run("check", str(HELD_OUT.relative_to(FIXTURES.parent)), "--trainer", "trl", "--max-seq-len", "512").stdout
    assert [w.split(": FT236 ")[1] for w in warnings(out, "FT236")] == [
        f"{t - 512:,} of {t:,} trained tokens fall past --max-seq-len 512: the record has {t:,} tokens" for t in tokens]
    (summary,) = warnings(out, "FT237")
    assert summary.endswith("FT237 20 of 20 records lose trained tokens past --max-seq-len 512 (lines 1, 2, 3, 4, 5, ...)")


def test_trl_cuts_at_its_own_default_without_a_flag() -> None:
    records = lines(TOY)
    tokens = [3 + sum(3 + n(m["role"]) + said(m) for m in r["messages"]) for r in records]
    e = ftlint.estimate(str(TOY), trainer="trl")
    assert e.truncation is not None and e.truncation.max_seq_len == 1024  # trl/trainer/sft_config.py max_length
    assert e.truncation.source.startswith("trl's default (trl/trainer/sft_config.py")
    assert e.counts.trainable_tokens == sum(min(t, 1024) for t in tokens) and e.counts.trainable_tokens_in_file == sum(tokens)
    out = run("check", str(TOY.relative_to(FIXTURES.parent)), "--trainer", "trl").stdout
    (cut,) = warnings(out, "FT236")
    assert cut.endswith(f":5:1: FT236 {tokens[4] - 1024:,} of {tokens[4]:,} trained tokens fall past trl's default max "
                        f"length 1,024: the record has {tokens[4]:,} tokens")


def keep_start(pairs: list[tuple[int, int]], cut: int) -> int:
    """Trained tokens among the first `cut`."""
    position = kept = 0
    for untrained, trained in pairs:
        start = position + untrained
        kept += max(0, min(start + trained, cut) - start)
        position = start + trained
    return kept


def test_openai_trains_the_kept_prefix_of_a_record_over_the_limit() -> None:
    # OpenAI truncates an example over the limit: only the answer's tokens before the cut train
    for path, limit in ((TOY, 1000), (HELD_OUT, 740)):
        records = lines(path)
        pairs = [layout(r["messages"], r.get("tools")) for r in records]
        sizes = [sum(u + t for u, t in p) for p in pairs]
        trained = [sum(t for _, t in p) for p in pairs]
        kept = [keep_start(p, limit) for p in pairs]
        e = ftlint.estimate(str(path), context=limit)
        assert e.run.trainer == "openai" and e.counts.trainable_tokens_in_file == sum(trained)
        assert e.counts.trainable_tokens == sum(kept) < sum(trained)
        assert e.counts.tokens == sum(min(s, limit) for s in sizes)
        assert e.truncation is not None and e.truncation.source == "the limit of --context"
        assert e.truncation.records_emptied == sum(1 for k, t in zip(kept, trained, strict=True) if t and not k)
    assert 0 < e.truncation.records_emptied < e.truncation.records  # the held-out file: some answers wholly past the cut
    out = run("check", str(HELD_OUT.relative_to(FIXTURES.parent)), "--context", "740").stdout
    assert not warnings(out, "FT236") and warnings(out, "FT301")  # a provider's limit: FT301 says it, once


def test_axolotl_drops_a_sample_past_sequence_len() -> None:
    # src/axolotl/utils/data/utils.py handle_long_seq_in_dataset: keep min_sample_len (2) <= len <= sequence_len
    records = json.loads(GLAIVE.read_text())
    figures = []
    for r in records:
        pairs = layout(*sharegpt(r))
        figures.append((sum(u + t for u, t in pairs), sum(t for _, t in pairs)))
    kept = [(t, k) for t, k in figures if 2 <= t <= 512]  # axolotl's default sequence_len, 512
    e = ftlint.estimate(str(GLAIVE), trainer="axolotl")
    assert e.truncation is not None and (e.truncation.max_seq_len, e.truncation.rule) == (512, "drop")
    assert e.data.records == len(kept) < len(records) and e.truncation.records_dropped == len(records) - len(kept)
    assert e.counts.tokens == sum(t for t, _ in kept) and e.counts.trainable_tokens == sum(k for _, k in kept)
    assert e.counts.tokens_in_file == sum(t for t, _ in figures) and e.counts.trainable_tokens_in_file == sum(k for _, k in figures)
    assert e.schedule.total_steps == math.ceil(len(kept) * 1 / 1)  # axolotl: ceil(records x num_epochs / batch), both 1
    out = run("check", str(GLAIVE.relative_to(FIXTURES.parent)), "--trainer", "axolotl").stdout
    assert len(warnings(out, "FT240")) == len(records) - len(kept)
    (summary,) = warnings(out, "FT237")
    assert f"FT237 {len(records) - len(kept)} of {len(records)} records are dropped past axolotl's default max length 512" in summary


def infer_seqlen(source: int, target: int, cutoff: int) -> tuple[int, int]:
    """LLaMA-Factory's rule (src/llamafactory/data/processor/processor_utils.py infer_seqlen), as
    published: a target under half the budget keeps whole; else a source under half keeps whole and
    the target has the rest; else the target's share is cutoff x target / (source + target),
    rounded down; the source has what the target leaves."""
    if target * 2 < cutoff:
        most = cutoff
    elif source * 2 < cutoff:
        most = cutoff - source
    else:
        most = int(cutoff * (target / (source + target)))
    kept_target = min(most, target)
    return min(max(cutoff - kept_target, 0), source), kept_target


def test_infer_seqlen_as_its_docstring_examples() -> None:
    from ftlint.trainers.llama_factory.cut import infer_seqlen as ftlint_infer_seqlen

    for case, expected in (((3000, 500, 2048), (1548, 500)), ((500, 3000, 2048), (500, 1548)), ((2000, 2000, 2048), (1024, 1024))):
        assert infer_seqlen(*case) == ftlint_infer_seqlen(*case) == expected


def test_llama_factory_cuts_each_turn_in_proportion() -> None:
    # supervised.py _encode_data_example: turn by turn, each (source, target) cut to what is left; none once it is used
    records = json.loads(GLAIVE.read_text())
    cutoff = 256
    tokens = trained = file_trained = cut_records = 0
    for r in records:
        pairs = layout(*sharegpt(r))
        file_trained += sum(t for _, t in pairs)
        total = kept_trained = 0
        for source, target in pairs:
            if total >= cutoff:
                break
            s, t = infer_seqlen(source, target, cutoff - total)
            total += s + t
            kept_trained += t
        tokens += total
        trained += kept_trained
        cut_records += sum(u + t for u, t in pairs) > cutoff
    e = ftlint.estimate(str(GLAIVE), trainer="llama-factory", max_seq_len=cutoff)
    assert e.truncation is not None and e.truncation.rule == "proportional" and e.truncation.records == cut_records
    assert (e.counts.tokens, e.counts.trainable_tokens, e.counts.trainable_tokens_in_file) == (tokens, trained, file_trained)
    assert 0 < trained < file_trained


def test_a_provider_that_rejects_a_record_past_its_limit_refuses_the_line() -> None:
    # Bedrock: a job fails past the limit (ftlint/trainers/hosted.py BEDROCK.past_max); the line is an error, in no figure
    path = "fixtures/formats/bedrock-nova/good.jsonl"
    out = run("check", path, "--model", "nova-micro", "--context", "40")
    (rejected,) = warnings(out.stdout, "FT303")
    assert out.exit_code == 1 and rejected.startswith(f"{path}:6:1: FT303 example has 105 tokens, over the 40-token limit")
    e = ftlint.estimate(str(FIXTURES / "formats" / "bedrock-nova" / "good.jsonl"), model="nova-micro", context=40)
    assert (e.data.lines, e.data.invalid_lines, e.data.records) == (7, 1, 6)
    assert "FT301" in run("check", path, "--context", "40").stdout  # no trainer named: a provider's truncation
