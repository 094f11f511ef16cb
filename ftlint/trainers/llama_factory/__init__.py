"""LLaMA-Factory, as read at hiyouga/LLaMA-Factory@ff6d4d1: its training YAML's defaults
(src/llamafactory/hparams/, over transformers' TrainingArguments), its dataset converters and
its own template registry."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base import Packing, Trainer
from .cut import PROPORTIONAL_CUT

if TYPE_CHECKING:
    from collections.abc import Mapping as Keyed
    from collections.abc import Sequence

    from ...mapping import Mapping
    from ..base import RecordRow, Resize, Split
    from ..configs.base import Keys, RunConfig
    from ..rendering import Renderer

class LlamaFactory(Trainer):
    cut = PROPORTIONAL_CUT
    aliases = ("llamafactory", "llama_factory")
    run_config = "a LLaMA-Factory YAML"
    column_mapping = "LLaMA-Factory's dataset_info.json (NAME: its dataset entry)"
    max_length_key = "cutoff_len"

    def reads_config(self, doc: dict) -> bool:
        return "stage" in doc or "cutoff_len" in doc or ("dataset" in doc and "template" in doc)

    def read_config(self, keys: Keys) -> RunConfig:
        from .config import read

        return read(keys)

    def reads_mapping(self, file: str) -> bool:
        return not file.endswith((".yml", ".yaml"))  # a dataset_info.json: JSON, by any name

    def mapping(self, file: str, name: str, paths: tuple[str, ...], limit: int) -> Mapping:
        from .mapping import mapping_of

        return mapping_of(file, name, paths, limit)

    def pre_resize(self) -> Resize | None:
        """src/llamafactory/hparams/data_args.py image_max_pixels 768 * 768, image_min_pixels 32 * 32
        (data/mm_plugin.py MMPluginMixin._preprocess_image scales an image into them: images.py)."""
        from .images import PreResize

        return PreResize(768 * 768, 32 * 32)

    def renderer(self, keys: Keyed[str, object]) -> Renderer | None:
        """Its own data pipeline (render.py), with the template its config names; None for a
        template ftlint does not have (the model's chat template counts, an estimate)."""
        from .render import Options, Renderer
        from .templates import TEMPLATES

        name = keys.get("template")
        stage = str(keys.get("stage") or "sft")
        if not keys or (name not in TEMPLATES and stage != "pt"):
            return None
        flags = {k: bool(keys.get(k, default)) for k, default in (("train_on_prompt", False), ("mask_history", False),
                 ("enable_thinking", True), ("preserve_thinking", False), ("packing", False))}
        columns = frozenset(str(keys.get("columns") or "").split(","))
        options = Options(TEMPLATES.get(str(name)), stage, columns=columns, **flags)
        default_system, tool_format = keys.get("default_system"), keys.get("tool_format")
        return Renderer(options.with_overrides(default_system if isinstance(default_system, str) else None,
                                               tool_format if isinstance(tool_format, str) else None))

    def _split(self, records: Sequence[RecordRow], keys: Keyed[str, object]) -> Split | None:
        """val_size's share (rows.py), which the default prepare holds out."""
        from .rows import split

        return split(records, keys)

    def _pack(self, records: Sequence[RecordRow], max_seq_len: int, keys: Keyed[str, object]) -> Packing:
        """Per map batch, as its processors pack (rows.py): greedy_knapsack, or pretraining's blocks."""
        from .rows import pack

        return pack(records, max_seq_len, keys)

    def counts_note(self, keys: Keyed[str, object], formatting: str) -> str:
        found = self.renderer(keys)
        if found is not None and found.reads(formatting):
            return ""
        name = keys.get("template")
        why = (f"its template {name} is not one ftlint renders" if name else "no template is set, and it parses the model's "
               "chat template into its own slots (data/template.py parse_template)") if found is None else \
            f"it does not read {formatting} data through its template"
        return (f"an estimate for {self.name}: {why}; counted with the model's chat template as transformers renders it "
                f"({self.profile.renderer.source})")

TRAINER = LlamaFactory("llama-factory", __name__)
