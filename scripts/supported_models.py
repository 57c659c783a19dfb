"""Write the README's "Supported models" table from the zoo (tests/zoo.py).

    .venv/bin/python scripts/supported_models.py           # rewrite the table in README.md
    .venv/bin/python scripts/supported_models.py --check   # exit 1 if README.md is stale

Every row is a family that tests/test_zoo.py builds and checks; the table only says what
those tests hold the family to.
"""

from __future__ import annotations

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import numpy as np  # noqa: E402
import transformers as tf  # noqa: E402
from zoo import FAMILIES, IMAGE_FAMILIES, MAX_POSITIONS, zoo_tokenizer  # noqa: E402

from attn_widget import analyze  # noqa: E402

START, END = "<!-- supported-models:start -->", "<!-- supported-models:end -->"
TEXT = "the cat sat on the mat"


def _what_the_user_is_told(family) -> str:
    """The sentence attn_widget gives for a refused family, or for its missing value vectors."""
    try:
        return analyze(family.build(), TEXT, zoo_tokenizer()).capture.values_unavailable
    except ValueError as error:
        return str(error)


def _limit(family) -> str:
    if family.limit is None:
        return "none"
    if not family.hard_limit:
        return "trained length (config)"
    return "position table" + (" after the pad index" if family.limit < MAX_POSITIONS else "")


def _image_row(family) -> str:
    """What an image analysis of the family offers, asked of the analysis itself."""
    analysis = analyze(family.build(), np.zeros((8, 8, 3), dtype=np.uint8))
    reason = analysis.gradient_part.unavailable()
    gradients = "gradients to a class logit"
    if reason:
        gradients = "no gradients (no classification head)" if "classification head" in reason else "no gradients"
    offers = f"image: attention, rollout, vision_rollout, flow; {gradients}"
    values = "no" if analysis.capture.values_unavailable else "yes"
    return f"| {family.name} | {family.model_name} | {offers} | {values} | none (patch grid) | {family.note} |"


def table() -> str:
    rows = [
        f"Checked by `tests/test_zoo.py` with transformers {tf.__version__}, the release `requirements/test.lock` "
        "installs. On another release the zoo accepts a family that moves between a verified analysis and a refusal "
        "(each checked in full) and lists it at the end of the run; the notes say where a family is known to depend "
        "on the release.",
        "",
        "| family | class | attention, rollout, flow, gradients | effective attention, value vectors "
        "| longest input | notes |",
        "|---|---|---|---|---|---|",
    ]
    for family in FAMILIES:
        model = family.model_name
        if family.expect == "refused":
            rows.append(f"| {family.name} | {model} | refused | | | {_what_the_user_is_told(family)} |")
        elif family.expect == "seq2seq":
            rows.append(
                f"| {family.name} | {model} | source + target: analyze(model, source, tokenizer, target) "
                f"| encoder | {_limit(family)} | {family.note} |"
            )
        elif family.expect == "attention":
            reason = _what_the_user_is_told(family)
            rows.append(f"| {family.name} | {model} | yes | no | {_limit(family)} | {family.note or reason} |")
        else:
            rows.append(f"| {family.name} | {model} | yes | yes | {_limit(family)} | {family.note} |")
    rows.extend(_image_row(family) for family in IMAGE_FAMILIES)
    return "\n".join(rows)


def section(readme: str) -> tuple[int, int]:
    return readme.index(START) + len(START), readme.index(END)


def main() -> int:
    path = ROOT / "README.md"
    readme = path.read_text()
    start, end = section(readme)
    fresh = readme[:start] + "\n" + table() + "\n" + readme[end:]
    if "--check" in sys.argv:
        if fresh != readme:
            print("README.md's supported-models table is stale: run scripts/supported_models.py", file=sys.stderr)
            return 1
        return 0
    path.write_text(fresh)
    return 0


if __name__ == "__main__":
    sys.exit(main())
