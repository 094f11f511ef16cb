"""LLaMA-Factory, as read at hiyouga/LLaMA-Factory@ff6d4d1: its training YAML's defaults
(src/llamafactory/hparams/, over transformers' TrainingArguments), its dataset converters and
its own template registry."""

from __future__ import annotations

from .profile import HF_STEPS, LLAMA_FACTORY, PROPORTIONAL, TARGETS, Fact, Profile

PROFILE = Profile(
    name="llama-factory", title="LLaMA-Factory", hosted=False,
    formats=Fact(("alpaca", "sharegpt", "text"),
                 "data/README.md; src/llamafactory/data/converter.py AlpacaDatasetConverter, SharegptDatasetConverter "
                 "(a dataset_info.json entry names the columns); stage pt reads one text column"),
    epochs=Fact(3, "transformers TrainingArguments.num_train_epochs=3.0 (src/llamafactory/hparams/ leaves it)"),
    batch=Fact(8, "transformers TrainingArguments.per_device_train_batch_size=8"),
    max_length=Fact(2048, "src/llamafactory/hparams/data_args.py DataArguments.cutoff_len=2048"),
    past_max=Fact(PROPORTIONAL, "src/llamafactory/data/processor/supervised.py _encode_data_example with "
                                "processor_utils.py infer_seqlen: each turn's prompt and answer cut to share what is left, "
                                "later turns dropped; no row dropped"),
    loss=Fact(TARGETS, "src/llamafactory/data/processor/supervised.py _encode_data_example: every turn's answer trains, "
                       "its end marker included; prompts masked (train_on_prompt=False, mask_history=False)"),
    renderer=Fact(LLAMA_FACTORY, "src/llamafactory/data/template.py register_template: the template named by `template:`"),
    control_tokens=Fact(True, "src/llamafactory/model/loader.py load_tokenizer: split_special_tokens=False by default"),
    packing=Fact(False, "src/llamafactory/hparams/data_args.py packing=None (on for stage pt only)"),
    steps=HF_STEPS,
    billing=Fact("", "self-hosted: compute, not tokens"),
    read="hiyouga/LLaMA-Factory@ff6d4d1",
)
