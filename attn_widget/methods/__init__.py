"""Pure tensor methods: torch only, usable without a notebook (a method that runs the model reaches it through the
analysis it is given: parts/value_zeroing.py, parts/hidden_attribution.py).

Every function takes attention in the orientation row = receiving token,
column = source token, and documents its tensor shapes.

The method files register themselves with ``registry`` when imported, in the order below.
"""

import importlib

from . import registry

# The method files, each registering one entry when imported: their order is the menus' order.
# The matrix menu follows the course (notebooks/course): a layer's attention as a graph, through the
# layers, decoders' receptive field, effective attention, gradients, then context mixing.
MATRIX_FILES = (
    "raw",
    "graph",
    "rollout",
    "flow",
    "rollout_rf",
    "flow_rf",
    "effective",
    "effective_rollout",
    "effective_flow",
    "hidden_attribution",
    "norm",
    "norm_residual",
    "globenc",
    "alti",
    "value_zeroing",
)
ATTRIBUTION_FILES = (
    "saliency",
    "grad_x_input",
    "integrated_gradients",
    "attention_gradient",
    "gradient_rollout",
    "blank_out",
    "alti_logit",
)
for _name in (*MATRIX_FILES, *ATTRIBUTION_FILES):
    importlib.import_module(f".{_name}", __name__)

from .attention_gradient import attention_gradient
from .effective import effective_attention, effective_mixing, removed_mass, signed_rollout
from .flow import flow
from .grad_x_input import grad_times_input
from .gradient_rollout import gradient_rollout
from .graph import adjacency, binarize, in_degree, out_degree, path_counts
from .heads import aggregate_heads
from .integrated_gradients import gauss_legendre
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
from .saliency import saliency

__all__ = [
    "registry",
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
