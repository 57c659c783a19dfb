"""BERT-like encoders (BERT, RoBERTa, MiniLM, ELECTRA, ...) and DistilBERT."""

from .base import Adapter

BERT_LIKE = Adapter(
    family="BERT-like",
    model_types=("bert", "roberta", "xlm-roberta", "camembert", "electra", "ernie", "data2vec-text"),
    layers="encoder.layer",
    value="attention.self.value",
    output="attention.output.dense",
    always_causal=False,
)

DISTILBERT = Adapter(
    family="DistilBERT",
    model_types=("distilbert",),
    layers="transformer.layer",
    value="attention.v_lin",
    output="attention.out_lin",
    always_causal=False,
)
