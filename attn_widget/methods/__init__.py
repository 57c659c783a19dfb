"""Pure tensor methods: torch only, usable without a notebook.

Every function takes attention in the orientation row = receiving token,
column = source token, and documents its tensor shapes.
"""

from .heads import aggregate_heads
from .graph import adjacency, binarize, in_degree, out_degree, path_counts
from .masks import admissible_keys
from .normalize import row_normalize
from .rollout import residual_augment, rollout

__all__ = [
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
