"""The planner of a file's images (ftlint/media/plan.py) for the judge: the model's processor (the
named model's, else the format's provider's default's), the file's folder, the trainer's resize."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..formats import Format
    from ..mapping import Mapping
    from ..media.plan import Planner
    from ..models import Model


def planner_for(fmt: Format, named: Model | None, model_name: str, today: str, mapping: Mapping | None,
                labels: tuple[tuple[str, str], ...], trainer: str, path: str, templated: bool) -> Planner:
    from ..media.plan import PLACEHOLDER_FORMATS, Planner, root_for
    from ..media.processors import processor
    from ..models import default_model, today_from
    from ..trainers import named as trainer_named

    model = named or (None if model_name else default_model(fmt.name, today_from(today or None)))
    proc = processor(str(model.processor.value)) if model is not None and model.processor is not None else None
    resize = trainer_named(trainer).pre_resize() if trainer else None
    return Planner(proc, root_for(path, labels, mapping.media_dir if mapping is not None else ""), templated,
                   getattr(fmt, "turns_key", ""), fmt.name in PLACEHOLDER_FORMATS or mapping is not None,
                   resize)
