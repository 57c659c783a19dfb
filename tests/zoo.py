"""A zoo of tiny random-weight models, one per transformers family, built offline from
transformers' own config classes. ``tests/test_zoo.py`` checks every one, and
``scripts/supported_models.py`` writes the README's table from the same entries.

Each entry says what attn_widget must do with the family: analyse it fully ("full":
attention and value vectors, verified against the model's output), analyse its attention
only ("attention": value-based methods refused, with the reason), or refuse it ("refused",
with the reason). A family whose behaviour changes fails the zoo test until this table
and the README say so.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import transformers as tf
from tiny_models import SPECIALS, WORDS, tiny_tokenizer

VOCAB = len(SPECIALS) + len(WORDS)
MAX_POSITIONS = 24  # small, so that the length-limit checks stay fast
_BASE = dict(vocab_size=VOCAB, pad_token_id=0, bos_token_id=2, eos_token_id=3)
_SIZES = dict(hidden_size=32, num_attention_heads=4, num_hidden_layers=2, intermediate_size=64)
_POSITIONS = dict(max_position_embeddings=MAX_POSITIONS)
_GQA = dict(num_key_value_heads=2)


@dataclass(frozen=True)
class Family:
    """One family of the zoo."""

    name: str  # as shown in the README
    config: type  # transformers config class
    options: dict  # config arguments
    model: type | None = None  # model class (default: AutoModel)
    expect: str = "full"  # "full", "attention", "seq2seq" (encoder-decoder, tests/test_seq2seq.py) or "refused"
    reason: str = ""  # for "attention" and "refused": part of the message the user gets
    limit: int | None = MAX_POSITIONS  # the longest input attn_widget accepts (None: no limit)
    hard_limit: bool = False  # the model itself fails one token past the limit (a learned position table)
    float64: bool = True  # transformers can run the family in float64 (not MoE kernels, XGLM's masks)
    note: str = ""  # README remark
    attn_implementation: str | None = None  # as loaded by the user (None: the family's default, usually sdpa)

    @property
    def id(self) -> str:
        return self.name.lower().replace(" ", "-").replace("(", "").replace(")", "").replace(",", "")

    def build(self, dtype: torch.dtype = torch.float32, seed: int = 0):
        """The model in eval mode with random weights and biases (sdpa where the family has it)."""
        config = self.config(**self.options)
        torch.manual_seed(seed)
        if self.attn_implementation:
            config._attn_implementation = self.attn_implementation
        model = tf.AutoModel.from_config(config) if self.model is None else self.model(config)
        with torch.no_grad():  # fresh models start with zero biases, which would hide a forgotten value bias
            for name, param in model.named_parameters():
                if name.endswith("bias") or name.endswith("v_bias"):
                    param.normal_(0, 0.5)
        return model.to(dtype).eval()


def zoo_tokenizer():
    """The tiny word-level tokenizer, with no length limit of its own (the models' limits apply)."""
    tokenizer = tiny_tokenizer()
    tokenizer.model_max_length = 10**9
    return tokenizer


_FAMILY_FIELDS = ("model", "expect", "reason", "limit", "hard_limit", "float64", "note", "attn_implementation")


def _family(name, config, options, extra):
    fields = {key: extra.pop(key) for key in _FAMILY_FIELDS if key in extra}
    return Family(name, config, {**options, **extra}, **fields)


def _llama_like(config, name, **extra):
    return _family(name, config, {**_BASE, **_SIZES, **_POSITIONS, **_GQA}, extra)


def _bert_like(config, name, **extra):
    return _family(name, config, {**_BASE, **_SIZES, **_POSITIONS}, {"hard_limit": True, **extra})


SEQ2SEQ_NOTE = (
    "widget: source + target tokens, encoder then decoder layers (self, cross, rollout); .encoder: every method"
)


def _seq2seq(config, name, model):
    sizes = dict(d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4)
    options = dict(_BASE, **sizes, encoder_ffn_dim=64, decoder_ffn_dim=64, decoder_start_token_id=2, **_POSITIONS)
    return Family(
        name,
        config,
        options,
        model=model,
        expect="seq2seq",
        note=SEQ2SEQ_NOTE,
    )


# RoBERTa-like embeddings count positions from the pad index + 1 (1 here, 2 for real RoBERTa).
_AFTER_PAD = dict(limit=MAX_POSITIONS - 1, note="positions start after the pad index (RoBERTa: 512 of 514)")


FAMILIES: tuple[Family, ...] = (
    # Encoders
    _bert_like(tf.BertConfig, "BERT"),
    _bert_like(tf.RobertaConfig, "RoBERTa", **_AFTER_PAD),
    _bert_like(tf.XLMRobertaConfig, "XLM-RoBERTa", **_AFTER_PAD),
    _bert_like(tf.CamembertConfig, "CamemBERT", **_AFTER_PAD),
    _bert_like(tf.Data2VecTextConfig, "Data2Vec text", **_AFTER_PAD),
    _bert_like(tf.ElectraConfig, "ELECTRA", embedding_size=32),
    _bert_like(tf.ErnieConfig, "ERNIE"),
    _bert_like(tf.MegatronBertConfig, "Megatron-BERT"),
    _bert_like(tf.RemBertConfig, "RemBERT", input_embedding_size=32, output_embedding_size=32),
    _bert_like(tf.RoFormerConfig, "RoFormer", embedding_size=32),
    _bert_like(tf.XLMRobertaXLConfig, "XLM-RoBERTa-XL", **_AFTER_PAD),
    _bert_like(tf.EsmConfig, "ESM", position_embedding_type="absolute", mask_token_id=4, **_AFTER_PAD),
    _bert_like(tf.AlbertConfig, "ALBERT", embedding_size=16, note="one layer shared by all layers"),
    _bert_like(tf.MPNetConfig, "MPNet", limit=MAX_POSITIONS - 2, note="positions start after the pad index"),
    Family(
        "DistilBERT",
        tf.DistilBertConfig,
        dict(_BASE, dim=32, n_heads=4, n_layers=2, hidden_dim=64, **_POSITIONS),
        hard_limit=True,
    ),
    _bert_like(tf.DebertaConfig, "DeBERTa", note="value bias kept beside the fused projection"),
    _bert_like(tf.DebertaV2Config, "DeBERTa-v2"),
    Family(
        "ModernBERT",
        tf.ModernBertConfig,
        dict(
            _BASE,
            **{**_SIZES, "num_hidden_layers": 3},
            max_position_embeddings=MAX_POSITIONS,
            local_attention=8,
            global_attn_every_n_layers=3,
            cls_token_id=2,
            sep_token_id=3,
        ),
        note="local layers: symmetric window",
    ),
    _bert_like(
        tf.MobileBertConfig, "MobileBERT", embedding_size=32, intra_bottleneck_size=32, num_feedforward_networks=1
    ),
    Family(
        "T5 encoder",
        tf.T5Config,
        dict(_BASE, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4),
        model=tf.T5EncoderModel,
        limit=None,
        note="relative positions: no length limit",
    ),
    _bert_like(tf.BigBirdConfig, "BigBird (full attention)", attention_type="original_full"),
    _bert_like(tf.ConvBertConfig, "ConvBERT", embedding_size=32, expect="attention", reason="convolution heads"),
    # Decoders
    Family(
        "GPT-2", tf.GPT2Config, dict(_BASE, n_embd=32, n_head=4, n_layer=2, n_positions=MAX_POSITIONS), hard_limit=True
    ),
    Family(
        "GPT-Neo",
        tf.GPTNeoConfig,
        dict(
            _BASE,
            hidden_size=32,
            num_heads=4,
            num_layers=2,
            attention_types=[[["global", "local"], 1]],
            window_size=4,
            **_POSITIONS,
        ),
        hard_limit=True,
        note="local layers: sliding window",
    ),
    Family("GPT-NeoX", tf.GPTNeoXConfig, dict(_BASE, **_SIZES, **_POSITIONS)),
    Family(
        "GPT-J",
        tf.GPTJConfig,
        dict(_BASE, n_embd=32, n_head=4, n_layer=2, rotary_dim=4, n_positions=MAX_POSITIONS),
        hard_limit=True,
    ),
    Family(
        "GPTBigCode",
        tf.GPTBigCodeConfig,
        dict(_BASE, n_embd=32, n_head=4, n_layer=2, n_positions=MAX_POSITIONS, multi_query=True),
        hard_limit=True,
        note="multi-query attention",
    ),
    Family(
        "CodeGen",
        tf.CodeGenConfig,
        dict(_BASE, n_embd=32, n_head=4, n_layer=2, rotary_dim=4, n_positions=MAX_POSITIONS),
        hard_limit=True,
        note="fused projection in 4 shards",
    ),
    Family(
        "OPT",
        tf.OPTConfig,
        dict(
            _BASE,
            hidden_size=32,
            num_attention_heads=4,
            num_hidden_layers=2,
            ffn_dim=64,
            word_embed_proj_dim=32,
            **_POSITIONS,
        ),
        hard_limit=True,
    ),
    Family(
        "BLOOM",
        tf.BloomConfig,
        dict(_BASE, hidden_size=32, n_head=4, n_layer=2),
        limit=None,
        note="ALiBi: no length limit",
    ),
    _bert_like(
        tf.FalconConfig,
        "Falcon",
        attn_implementation="eager",
        hard_limit=False,
        note="load with eager attention; multi-query",
    ),
    _bert_like(
        tf.FalconConfig,
        "Falcon (new architecture)",
        attn_implementation="eager",
        hard_limit=False,
        new_decoder_architecture=True,
        num_kv_heads=2,
    ),
    _bert_like(
        tf.FalconConfig, "Falcon (ALiBi)", attn_implementation="eager", hard_limit=False, alibi=True, multi_query=False
    ),
    Family(
        "MPT", tf.MptConfig, dict(_BASE, d_model=32, n_heads=4, n_layers=2, max_seq_len=MAX_POSITIONS), hard_limit=True
    ),
    Family(
        "XGLM",
        tf.XGLMConfig,
        dict(_BASE, d_model=32, attention_heads=4, num_layers=2, ffn_dim=64, **_POSITIONS),
        float64=False,
    ),
    Family("BioGPT", tf.BioGptConfig, dict(_BASE, **_SIZES, **_POSITIONS), hard_limit=True),
    Family(
        "CTRL",
        tf.CTRLConfig,
        dict(_BASE, n_embd=32, n_head=4, n_layer=2, dff=64, n_positions=MAX_POSITIONS),
        hard_limit=True,
    ),
    _llama_like(tf.LlamaConfig, "Llama"),
    _llama_like(tf.LlamaConfig, "Llama (value bias)", attention_bias=True),
    _llama_like(tf.MistralConfig, "Mistral", sliding_window=4),
    _llama_like(tf.MixtralConfig, "Mixtral", float64=False, num_local_experts=2, num_experts_per_tok=1),
    _llama_like(tf.Qwen2Config, "Qwen2"),
    _llama_like(
        tf.Qwen2MoeConfig,
        "Qwen2-MoE",
        float64=False,
        num_experts=2,
        num_experts_per_tok=1,
        moe_intermediate_size=32,
        shared_expert_intermediate_size=32,
    ),
    _llama_like(tf.Qwen3Config, "Qwen3", head_dim=8),
    _llama_like(
        tf.Qwen3MoeConfig,
        "Qwen3-MoE",
        float64=False,
        head_dim=8,
        num_experts=2,
        num_experts_per_tok=1,
        moe_intermediate_size=32,
    ),
    _llama_like(tf.GemmaConfig, "Gemma", head_dim=8),
    _llama_like(tf.Gemma2Config, "Gemma 2", head_dim=8, sliding_window=4),
    _llama_like(tf.Gemma3TextConfig, "Gemma 3", head_dim=8, sliding_window=4, sliding_window_pattern=2),
    _llama_like(tf.PhiConfig, "Phi"),
    _llama_like(tf.Phi3Config, "Phi-3"),
    _llama_like(tf.OlmoConfig, "OLMo"),
    _llama_like(tf.Olmo2Config, "OLMo 2"),
    _llama_like(tf.OlmoeConfig, "OLMoE", float64=False, num_experts=2, num_experts_per_tok=1),
    _llama_like(tf.StableLmConfig, "StableLM"),
    _llama_like(tf.CohereConfig, "Cohere"),
    _llama_like(tf.Cohere2Config, "Cohere 2", sliding_window=4),
    _llama_like(tf.GraniteConfig, "Granite"),
    _llama_like(tf.Starcoder2Config, "Starcoder2", sliding_window=4),
    _llama_like(tf.PersimmonConfig, "Persimmon", num_key_value_heads=4),
    _llama_like(tf.NemotronConfig, "Nemotron", head_dim=8),
    _llama_like(
        tf.GptOssConfig,
        "GPT-OSS",
        float64=False,
        head_dim=8,
        num_local_experts=2,
        num_experts_per_tok=1,
        sliding_window=4,
        note="attention sinks: rows sum to less than 1 and are re-normalised",
    ),
    Family(
        "CLIP text",
        tf.CLIPTextConfig,
        dict(_BASE, **_SIZES, **_POSITIONS),
        model=tf.CLIPTextModel,
        hard_limit=True,
        note="causal mask applied without being declared",
    ),
    # Task heads on top of a base model
    _bert_like(tf.BertConfig, "BERT, sequence classifier", num_labels=3, model=tf.BertForSequenceClassification),
    _bert_like(tf.BertConfig, "BERT, masked LM", model=tf.BertForMaskedLM),
    Family(
        "GPT-2, causal LM",
        tf.GPT2Config,
        dict(_BASE, n_embd=32, n_head=4, n_layer=2, n_positions=MAX_POSITIONS),
        model=tf.GPT2LMHeadModel,
        hard_limit=True,
    ),
    Family("Llama, causal LM", tf.LlamaConfig, dict(_BASE, **_SIZES, **_POSITIONS, **_GQA), model=tf.LlamaForCausalLM),
    # Encoder-decoders: analyze(model, source, tokenizer, target) -> Seq2SeqAnalysis (tests/test_seq2seq.py)
    Family(
        "T5",
        tf.T5Config,
        dict(_BASE, decoder_start_token_id=0, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4),
        model=tf.T5ForConditionalGeneration,
        expect="seq2seq",
        limit=None,
        note=SEQ2SEQ_NOTE,
    ),
    _seq2seq(tf.BartConfig, "BART", tf.BartForConditionalGeneration),
    _seq2seq(tf.MBartConfig, "mBART", tf.MBartForConditionalGeneration),
    _seq2seq(tf.MarianConfig, "Marian", tf.MarianMTModel),
    _seq2seq(tf.PegasusConfig, "Pegasus", tf.PegasusForConditionalGeneration),
    # Refused, each with one sentence saying why and what to do
    Family(
        "Longformer",
        tf.LongformerConfig,
        dict(_BASE, **_SIZES, attention_window=4, max_position_embeddings=64),
        expect="refused",
        reason="local window plus global tokens",
    ),
    Family(
        "Funnel",
        tf.FunnelConfig,
        dict(_BASE, d_model=32, n_head=4, d_head=8, d_inner=64, block_sizes=[1, 1]),
        model=tf.FunnelModel,
        expect="refused",
        reason="pools the sequence",
    ),
    _bert_like(tf.FalconConfig, "Falcon (loaded with sdpa)", expect="refused", reason="cannot switch to eager"),
    _bert_like(tf.BigBirdConfig, "BigBird (block sparse)", expect="refused", reason='attention_type="original_full"'),
    Family(
        "T5 (no LM head, no target)",
        tf.T5Config,
        dict(_BASE, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4),
        expect="refused",
        reason="encoder-decoder",
    ),
    Family(
        "Swin",
        tf.SwinConfig,
        dict(image_size=8, patch_size=2, embed_dim=8, depths=[1], num_heads=[2], window_size=2),
        expect="refused",
        reason="attends in local windows",
    ),
    _llama_like(tf.DiffLlamaConfig, "DiffLlama", expect="refused", reason="subtracts two softmax maps"),
    _llama_like(
        tf.JambaConfig,
        "Jamba",
        **{**_SIZES, "num_hidden_layers": 4},
        attn_layer_period=2,
        attn_layer_offset=1,
        expert_layer_period=4,
        num_experts=2,
        mamba_d_state=4,
        mamba_dt_rank=4,
        use_mamba_kernels=False,
        expect="refused",
        reason="for 2 of its 4 layers",
    ),
    Family(
        "Mamba",
        tf.MambaConfig,
        dict(_BASE, hidden_size=32, num_hidden_layers=2),
        expect="refused",
        reason="no attention weights",
    ),
)


# Vision transformers with global attention, analysed from an image (tests/test_vision.py).
_VISION = dict(**_SIZES, image_size=8, patch_size=4)
IMAGE_FAMILIES: tuple[Family, ...] = (
    Family("ViT", tf.ViTConfig, _VISION, limit=None),
    Family("ViT, image classifier", tf.ViTConfig, dict(_VISION, num_labels=3), model=tf.ViTForImageClassification),
    Family("DeiT", tf.DeiTConfig, _VISION, limit=None, note="distillation token"),
    Family("DINOv2", tf.Dinov2Config, _VISION, limit=None),
    Family("DINOv2 with registers", tf.Dinov2WithRegistersConfig, dict(_VISION, num_register_tokens=2), limit=None),
)
