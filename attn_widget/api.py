"""``analyze``: the entry point. Text and image models give an ``Analysis``, encoder-decoders a
``Seq2SeqAnalysis``."""

from __future__ import annotations

from .analysis import Analysis
from .capture import capture
from .inputs import check_model, check_order, resolve_tokenizer, unwrap
from .seq2seq import analyze_seq2seq
from .vision import capture_image, is_vision_model


def analyze(model, text, tokenizer=None, target: str | None = None, processor=None, layers=None):
    """Run ``model`` on ``text`` (or an image) once and return a lazily computed ``Analysis``.

    model: a PyTorch Hugging Face transformers model (left exactly as it was found), or a
    ``torch.compile`` of one (analysed through the module it wraps).
    text: a string for text models; for vision transformers (ViT, DeiT, DINOv2) a PIL image or an
    array/tensor (H, W, C), (C, H, W), (H, W) or (1, C, H, W), uint8 on 0..255 or float on 0..1 (a shape that reads
    either way, such as (3, W, 3), is refused: pass it as (1, C, H, W); ``attn_widget.vision``).
    tokenizer: optional; loaded from the model's local path when omitted.
    processor: images only, an ``AutoImageProcessor``; when omitted a minimal resize and normalisation
    from the model config (``vision.pixel_values``). Also accepted as the third argument for images.
    target: encoder-decoder models only (``models.families.SEQ2SEQ``: T5, BART, Marian, M2M100, ...): ``text`` is the
    source and the decoder is forced to produce ``target`` (None: the model's own greedy output),
    and the result is a ``seq2seq.Seq2SeqAnalysis`` (docs/methods.md §2.7).
    layers: text models, the layer numbers (1..L) whose attention the pass must read; on a long input (every
    layer's heads beyond ``head_store.READ_AT_ONCE_BYTES``) read from the model's sdpa calls, the others are read
    when first asked for, in one more pass that stops after the last layer wanted. None: every layer (what the
    widget does not need at once: it reads the shown layer first, the others after its first picture).
    """
    check_order(model, text, "analyze")
    model = unwrap(model)
    first = _layer_indices(layers)
    if getattr(getattr(model, "config", None), "is_encoder_decoder", False):
        if first is not None:
            raise TypeError("layers= is for text models; an encoder-decoder's passes read every layer.")
        return analyze_seq2seq(model, text, tokenizer, target)
    if target is not None:
        raise TypeError(
            "target= is for encoder-decoder models (the text the decoder is forced to produce); "
            f"{type(model).__name__} is not one. For gradient targets use analysis.attribution(method, target)."
        )
    check_model(model)
    if is_vision_model(model):
        if isinstance(text, str):
            raise TypeError(f"{type(model).__name__} is a vision model: pass an image (PIL or array), not a string.")
        return Analysis(capture_image(model, text, processor if processor is not None else tokenizer), model=model)
    tokenizer = resolve_tokenizer(model, tokenizer)  # once: capture() and gradients use the same one
    return Analysis(capture(model, text, tokenizer, first), model=model, tokenizer=tokenizer)


def _layer_indices(layers) -> list[int] | None:
    """``layers`` (numbers 1..L) as 0-based indices, or None; a bad value is refused here."""
    if layers is None:
        return None
    numbers = list(layers) if not isinstance(layers, (str, bytes)) else None
    if not numbers or any(isinstance(x, bool) or not isinstance(x, int) or x < 1 for x in numbers):
        raise ValueError(f"layers must be layer numbers 1..L (layer 1 is the first); got {layers!r}.")
    return [x - 1 for x in numbers]
