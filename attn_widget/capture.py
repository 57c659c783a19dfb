"""Run the model once and record everything the methods need.

model + text → one forward pass with hooks → a ``Capture`` of CPU tensors for the
valid (unpadded) tokens. The model is borrowed and handed back unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .errors import UnsupportedModelError
from .inputs import check_model, check_text, encode, resolve_tokenizer
from .methods.masks import admissible_keys
from .model_state import borrowed_for_capture
from .models import Adapter, HeadGeometry, adapter_for, sliding_windows, supported_families

# Attention mass outside the declared mask above this means the mask is wrong.
_MASK_TOLERANCE = 1e-4


@dataclass
class Capture:
    """What one forward pass recorded. ``L`` layers, ``H`` query heads, ``n`` tokens.

    Tensors live on the CPU in float32 (float64 when the model is float64).
    """

    tokens: list[str]  # display text per token, length n
    token_ids: torch.Tensor  # (n,) long
    special: torch.Tensor  # (n,) bool: special tokens such as [CLS] or <s>
    attentions: torch.Tensor  # (L, H, n, n): row = query (receiver), column = key (source)
    masks: torch.Tensor  # (L, n, n) bool: keys each query may see (causal, sliding window)
    causal: bool
    hidden_states: torch.Tensor | None  # (L + 1, n, d): embeddings, then each layer's output
    model_name: str
    model_type: str
    model_dtype: torch.dtype = torch.float32  # the dtype the model computed in (sets rank tolerances)
    family: str | None = None  # adapter family, None when unsupported
    geometry: HeadGeometry | None = None
    values: torch.Tensor | None = None  # (L, H_kv, n, d_h) value vectors incl. bias
    out_weights: torch.Tensor | None = None  # (L, H, d_h, d): W_O slice per head
    out_bias: torch.Tensor | None = None  # (L, d)
    model_inputs: dict | None = None  # the tokenizer's tensors, (1, n) each, on the CPU

    @property
    def n_layers(self) -> int:
        return self.attentions.shape[0]

    @property
    def n_heads(self) -> int:
        return self.attentions.shape[1]

    @property
    def n_tokens(self) -> int:
        return self.attentions.shape[-1]

    def require_values(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(values, out_weights, out_bias)``, or an error naming the supported families."""
        if self.values is None:
            raise UnsupportedModelError(
                f"This method needs value vectors and output-projection weights, which attn_widget can "
                f"read only for known model families; {self.model_type!r} is not one of them. "
                f"Supported: {supported_families()}. Attention-only methods (raw, rollout) still work."
            )
        return self.values, self.out_weights, self.out_bias


def capture(model, text: str, tokenizer=None) -> Capture:
    """Tokenize ``text`` and run ``model`` once, recording attentions, values and hidden states."""
    check_model(model)
    text = check_text(text)
    tokenizer = resolve_tokenizer(model, tokenizer)
    encoded = encode(model, text, tokenizer)
    adapter = adapter_for(model.config)
    model_dtype = next(model.parameters()).dtype
    dtype = torch.float64 if model_dtype == torch.float64 else torch.float32

    projected: dict[int, torch.Tensor] = {}
    handles = []
    with borrowed_for_capture(model):
        try:
            if adapter is not None:
                for index, layer in enumerate(adapter.layer_modules(model)):
                    handles.append(adapter.value_module(layer).register_forward_hook(_keep_output(projected, index)))
            with torch.no_grad():
                outputs = model(**encoded.model_inputs, output_attentions=True, output_hidden_states=True)
        finally:
            for handle in handles:
                handle.remove()

    attentions = _stack_attentions(outputs, model, dtype)
    causal = adapter.is_causal(model.config) if adapter else _looks_causal(model.config, attentions)
    windows = sliding_windows(model.config, attentions.shape[0])
    n = attentions.shape[-1]
    masks = torch.stack([admissible_keys(n, causal, w) for w in windows])
    _check_mask(attentions, masks)

    hidden = getattr(outputs, "hidden_states", None)
    record = Capture(
        tokens=encoded.tokens,
        token_ids=encoded.token_ids,
        special=encoded.special,
        attentions=attentions,
        masks=masks,
        causal=causal,
        hidden_states=torch.stack([h[0] for h in hidden]).to("cpu", dtype) if hidden else None,
        model_name=getattr(model, "name_or_path", "") or type(model).__name__,
        model_type=str(getattr(model.config, "model_type", "unknown")),
        model_dtype=model_dtype,
        model_inputs={key: value.cpu() for key, value in encoded.model_inputs.items()},
    )
    if adapter is not None:
        _add_value_data(record, adapter, model, projected, dtype)
    return record


def _keep_output(store: dict[int, torch.Tensor], index: int):
    def hook(_module, _inputs, output):
        store[index] = output.detach()

    return hook


def _stack_attentions(outputs, model, dtype: torch.dtype) -> torch.Tensor:
    """``outputs.attentions`` (L tensors ``(1, H, n, n)``) → ``(L, H, n, n)`` on the CPU."""
    attentions = getattr(outputs, "attentions", None)
    if not attentions or any(a is None for a in attentions):
        raise ValueError(
            f"{type(model).__name__} returned no attention weights even with eager attention. "
            'Load it with attn_implementation="eager" and check that it supports output_attentions.'
        )
    return torch.stack([a[0] for a in attentions]).to("cpu", dtype)


def _looks_causal(config, attentions: torch.Tensor) -> bool:
    """For models without an adapter: a decoder flag, or no weight at all above the diagonal."""
    if getattr(config, "is_decoder", False):
        return True
    n = attentions.shape[-1]
    return n > 1 and bool((attentions.triu(diagonal=1) == 0).all())


def _check_mask(attentions: torch.Tensor, masks: torch.Tensor) -> None:
    leaked = attentions.masked_fill(masks.unsqueeze(1), 0).abs().amax()
    if leaked > _MASK_TOLERANCE:
        raise RuntimeError(
            f"The model put attention weight {leaked:.3g} on keys that its configuration says are masked. "
            "Its attention mask is not the one attn_widget derived (causal or sliding window); please report "
            "this model type."
        )


def _add_value_data(
    record: Capture, adapter: Adapter, model, projected: dict[int, torch.Tensor], dtype: torch.dtype
) -> None:
    geometry = adapter.geometry(model.config)
    layers = adapter.layer_modules(model)
    if len(projected) != len(layers) or len(layers) != record.n_layers:
        raise RuntimeError(
            f"Expected value projections from {record.n_layers} layers, captured {len(projected)}; "
            f"the {adapter.family} adapter does not match {type(model).__name__}."
        )
    values, weights, biases = [], [], []
    for index, layer in enumerate(layers):
        values.append(adapter.split_values(projected[index][0], geometry))
        weight, bias = adapter.output_slices(adapter.output_module(layer), geometry)
        weights.append(weight)
        biases.append(bias)
    record.family = adapter.family
    record.geometry = geometry
    record.values = torch.stack(values).to("cpu", dtype)
    record.out_weights = torch.stack(weights).to("cpu", dtype)
    record.out_bias = torch.stack(biases).to("cpu", dtype)
