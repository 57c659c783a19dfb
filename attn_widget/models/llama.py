"""Llama-like decoders with grouped-query attention (Llama, Mistral, Qwen2, Qwen3)."""

from .base import Adapter

LLAMA_LIKE = Adapter(
    family="Llama-like",
    model_types=("llama", "mistral", "qwen2", "qwen3"),
    layers="layers",
    value="self_attn.v_proj",
    output="self_attn.o_proj",
    always_causal=True,
)
