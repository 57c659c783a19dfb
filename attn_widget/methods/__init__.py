"""Pure tensor methods: torch only, usable without a notebook.

Every function takes attention in the orientation row = receiving token,
column = source token, and documents its tensor shapes.
"""

from .heads import aggregate_heads
from .attribution import (
    attention_gradient,
    gauss_legendre,
    grad_times_input,
    gradient_rollout,
    saliency,
)
from .effective import effective_attention, effective_mixing, removed_mass, signed_rollout
from .flow import flow
from .graph import adjacency, binarize, in_degree, out_degree, path_counts
from .masks import admissible_keys
from .normalize import row_normalize
from .receptive_field import (
    baseline_difference,
    baseline_ratio,
    drop_sink,
    null_attention,
    prescaled_residual_rollout,
    query_lift,
    received_per_query,
)
from .rollout import residual_augment, rollout

__all__ = [
    "attention_gradient",
    "gauss_legendre",
    "grad_times_input",
    "gradient_rollout",
    "saliency",
    "effective_attention",
    "effective_mixing",
    "removed_mass",
    "signed_rollout",
    "baseline_difference",
    "baseline_ratio",
    "drop_sink",
    "null_attention",
    "prescaled_residual_rollout",
    "query_lift",
    "received_per_query",
    "flow",
    "aggregate_heads",
    "admissible_keys",
    "adjacency",
    "binarize",
    "in_degree",
    "out_degree",
    "path_counts",
    "residual_augment",
    "rollout",
    "row_normalize",
]
