"""What attn_widget knows about particular families beyond their structure: the ones it
refuses before running them, and the ones whose attention output is not A·V alone.

Everything else is found by structure (``sites.py``) and verified at capture time.
"""

from __future__ import annotations

_WINDOWED = (
    "its attention is a local window plus global tokens and comes back per window, not as one matrix over the tokens"
)

# model_type -> why the model cannot be analysed at all (checked before it runs).
REFUSED: dict[str, str] = {
    "longformer": _WINDOWED,
    "led": _WINDOWED,
    "funnel": "it pools the sequence between blocks, so its layers do not share one set of tokens",
    "reformer": "its LSH attention returns bucketed weights, not one matrix over the tokens",
    "diffllama": "its differential attention subtracts two softmax maps, so no single attention matrix says "
    "what it mixes",
}

# Encoder-decoder families analysed by ``seq2seq.py`` (source + target text); others are refused.
SEQ2SEQ: tuple[str, ...] = (
    "t5",
    "bart",
    "mbart",
    "marian",
    "pegasus",
    "mt5",
    "umt5",
    "blenderbot",
    "blenderbot-small",
    "m2m_100",
    "plbart",
    "mvp",
    "switch_transformers",  # T5 with mixture-of-experts feed-forward layers
    "nllb-moe",  # M2M100 with mixture-of-experts feed-forward layers
)

# model_type -> why an encoder-decoder family cannot be analysed, and what to analyse instead (the rest: not checked).
SEQ2SEQ_NOT_READ: dict[str, str] = {
    "longt5": "its encoder attends within local blocks of tokens (and, with transient-global attention, to a summary "
    "of each block) and returns those weights block by block, not as one matrix over the source tokens; T5 and mT5 "
    "models, whose encoders attend over all tokens, are analysed",
    "pegasus_x": "its encoder attends within blocks of tokens and to global tokens of its own, and returns those "
    "weights block by block, not as one matrix over the source tokens; Pegasus models "
    "(PegasusForConditionalGeneration), which attend over all tokens, are analysed",
    "prophetnet": "its decoder runs n-gram prediction streams beside its main stream (n-stream self-attention) and "
    "predicts each next token from the first of them, so the one causal matrix per layer it returns (the main "
    "stream's) is not the attention that makes its predictions; BART and T5 models are analysed",
    "fsmt": "its layers pass tensors time-first (tokens, batch, features: fairseq's layout), which attn_widget's "
    "reading of value vectors and its re-running of layers do not handle; Marian models (MarianMTModel, e.g. "
    "Helsinki-NLP/opus-mt-en-de) translate the same language pairs and are analysed",
}

# Vision transformers with global self-attention over [CLS] (+ distillation/register tokens) and patches.
GLOBAL_VISION = frozenset({"vit", "deit", "dinov2", "dinov2_with_registers"})

# model_type -> what keeps a vision model that is not one of those from being read (the rest: not checked).
VISION_NOT_READ: dict[str, str] = {
    "swin": "it attends in local windows that shift between layers, not over all patches at once",
    "beit": "it adds a learned relative position bias to its attention scores, which attn_widget has not checked yet",
    "data2vec-vision": "it adds a learned relative position bias to its attention scores (as BEiT does), which "
    "attn_widget has not checked yet",
    "vit_mae": "it drops and shuffles the patches at random in every forward pass (its random masking), so its tokens "
    "are not the image's patches in order",
    "yolos": "its detection tokens come after the patches, and attn_widget reads prefix tokens before them only",
    "siglip_vision_model": "it has no [CLS] token (an attention head pools the patches), and attn_widget has not "
    "checked such a model yet",
    "clip_vision_model": "its attention is global, but attn_widget has not checked CLIP's vision tower yet",
}

# model_type -> why value vectors cannot explain the attention output (attention-only methods still work).
ATTENTION_ONLY: dict[str, str] = {
    "convbert": "ConvBERT mixes convolution heads into the attention output",
}


def refusal(model) -> str | None:
    """Why ``model`` cannot be analysed, said in one sentence with what to do, or None."""
    config = model.config
    name = type(model).__name__
    model_type = getattr(config, "model_type", "")
    if model_type in REFUSED:
        return f"{name} cannot be analysed: {REFUSED[model_type]}."
    # BigBird. Not BigBird-Pegasus: with full attention it is still a family the encoder-decoder check refuses.
    unchecked_seq2seq = getattr(config, "is_encoder_decoder", False) and model_type not in SEQ2SEQ
    if getattr(config, "attention_type", None) == "block_sparse" and not unchecked_seq2seq:
        return (
            f"{name} uses block-sparse attention, which returns no per-token weights (and would switch itself "
            'to full attention for short texts). Load it with attention_type="original_full", e.g. '
            f'{name}.from_pretrained(path, attention_type="original_full").'
        )
    main_input = getattr(model, "main_input_name", "input_ids")
    if main_input == "pixel_values" and model_type in GLOBAL_VISION:
        return None
    if main_input == "pixel_values":
        why = VISION_NOT_READ.get(model_type, f"attn_widget has not checked {model_type!r} models")
        return (
            f"{name} cannot be analysed: {why} (attn_widget reads vision transformers that attend globally over "
            f"prefix tokens and the patches in order: {', '.join(sorted(GLOBAL_VISION))})."
        )
    if main_input != "input_ids":
        return (
            f"{name} takes {main_input}: attn_widget analyses models of token ids (text) and of pixel_values "
            "(vision transformers), not audio or other inputs. Pass a text or image model."
        )
    return None
