"""archs.py - real transformers architectures, small and random, exported
the way their users export them.

gen.py calls programs(), which yields (name, make, strict, preserve, dynamic):
make() returns (module, args, kwargs); gen.py seeds torch (manual_seed(0))
before make() and exports with torch.export.export(module, args, kwargs,
strict=..., preserve_module_call_signature=..., dynamic_shapes=...).

Every model is built from its config object with small sizes (hidden 32-64,
2 layers, 2-4 heads, vocab ~100, sequence ~8) and random weights: nothing is
read from the Hugging Face hub (run with HF_HUB_OFFLINE=1). Where a model's
forward returns a ModelOutput, the keyword return_dict=False makes it a
tuple; where a wrapper is needed (a cache, an encoder alone) the wrapper is
the one transformers ships for export (transformers.integrations.executorch)
or a small one of ours whose child is the model, so the transformers module
tree stays whole under it.

Names: ARCH[_VARIANT]__strict / __nonstrict, __preserve when a module's call
signature is preserved, __dynamic with dynamic shapes.

Needs torch 2.13 and transformers 5.24 (the conformance venv).
"""
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

VOCAB = 100
SEQ = 8
BATCH = 1


def _ids(n=SEQ, batch=BATCH):
    g = torch.Generator().manual_seed(1)
    return torch.randint(0, VOCAB, (batch, n), generator=g)


def _quiet():
    import transformers
    transformers.logging.set_verbosity_error()
    return transformers


def _eval(model):
    model.eval()
    return model


# ---- decoder-only LMs -------------------------------------------------------

def gpt2_lm():
    """GPT2LMHeadModel: GPT-2 ties lm_head.weight to transformer.wte.weight."""
    t = _quiet()
    cfg = t.GPT2Config(vocab_size=VOCAB, n_positions=32, n_embd=32, n_layer=2, n_head=2,
                       use_cache=False)
    m = _eval(t.GPT2LMHeadModel(cfg))
    assert m.lm_head.weight is m.transformer.wte.weight
    return m, (_ids(),), {"return_dict": False}


def gpt2_model():
    """GPT2Model (no head): the bare transformer."""
    t = _quiet()
    cfg = t.GPT2Config(vocab_size=VOCAB, n_positions=32, n_embd=32, n_layer=2, n_head=2,
                       use_cache=False)
    m = _eval(t.GPT2Model(cfg))
    return m, (_ids(),), {"return_dict": False}


def _llama_cfg(t, tie=False, **kw):
    return t.LlamaConfig(vocab_size=VOCAB, hidden_size=64, intermediate_size=128,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=64, tie_word_embeddings=tie,
                         use_cache=False, **kw)


def llama_lm():
    """LlamaForCausalLM, untied, grouped-query attention (4 heads, 2 kv heads)."""
    t = _quiet()
    m = _eval(t.LlamaForCausalLM(_llama_cfg(t)))
    mask = torch.ones(BATCH, SEQ, dtype=torch.long)
    return m, (_ids(),), {"attention_mask": mask, "return_dict": False}


def llama_tied():
    """LlamaForCausalLM with tie_word_embeddings=True: lm_head.weight and
    model.embed_tokens.weight are one Parameter."""
    t = _quiet()
    m = _eval(t.LlamaForCausalLM(_llama_cfg(t, tie=True)))
    assert m.lm_head.weight is m.model.embed_tokens.weight
    return m, (_ids(),), {"return_dict": False}


def llama_static_cache():
    """LlamaForCausalLM behind transformers' own ExecuTorch recipe,
    TorchExportableModuleWithStaticCache (what convert_and_export_with_cache
    exports): StaticCache tensors registered as buffers, updated in place by
    index_copy_ each step, one token in, cache_position in. Strict (the
    recipe's default) finds the cache as those buffers (placeholders named
    b_static_cache_layers_0_keys...); non-strict lifts it as constants
    c_*lifted_tensor_* mutated in place and leaves b_key_cache_* unused
    (see _rebinding)."""
    w = _llama_static_wrapper(lambda cls: cls)
    return w, (), {"input_ids": torch.tensor([[3]], dtype=torch.long),
                   "cache_position": torch.tensor([0], dtype=torch.long)}


def _llama_static_wrapper(wrap):
    """a small LlamaForCausalLM behind transformers' TorchExportableModule-
    WithStaticCache (the class passed through wrap first), cache of 16"""
    t = _quiet()
    from transformers.integrations.executorch import TorchExportableModuleWithStaticCache
    cfg = _llama_cfg(t)
    cfg.use_cache = True
    m = _eval(t.LlamaForCausalLM(cfg))
    m.generation_config.use_cache = True
    m.generation_config.cache_implementation = "static"
    return _eval(wrap(TorchExportableModuleWithStaticCache)(m, batch_size=1, max_cache_len=16))


def _rebinding(base):
    """base (a transformers export recipe holding a StaticCache whose
    tensors it registers as buffers) with a forward that first points the
    cache layers at the module's buffers. Non-strict export swaps a
    module's buffers for its own tensors while it traces, but the
    StaticCache still holds the originals, so with the recipe as shipped
    non-strict torch 2.13 lifts the cache as constants (c_lifted_tensor_*)
    mutated in place and leaves the buffers unused (strict export, the
    recipe's default, finds them as buffers). Rebound, the cache is the
    buffers: index_copy_/copy_/add_ on b_key_cache_* etc. (export's
    training IR keeps mutations in place; run_decompositions would make
    them BUFFER_MUTATION outputs)."""

    class StaticCacheAsBuffers(base):
        def forward(self, *args, **kwargs):
            cache = getattr(self, "static_cache", None) or self.cache
            for i, layer in enumerate(cache.layers):
                layer.keys = getattr(self, f"key_cache_{i}")
                layer.values = getattr(self, f"value_cache_{i}")
                layer.cumulative_length = getattr(self, f"cumulative_length_{i}")
            return super().forward(*args, **kwargs)

    StaticCacheAsBuffers.__module__ = __name__
    StaticCacheAsBuffers.__qualname__ = "StaticCacheAsBuffers"
    return StaticCacheAsBuffers


def llama_kv_buffers():
    """LlamaForCausalLM behind TorchExportableModuleWithStaticCache with
    the cache rebound to the registered buffers (see _rebinding): key/value
    caches updated with index_copy_ and cumulative_length with copy_/add_,
    all in place on the buffers, two tokens in."""
    w = _llama_static_wrapper(_rebinding)
    return w, (), {"input_ids": torch.tensor([[3, 5]], dtype=torch.long),
                   "cache_position": torch.tensor([0, 1], dtype=torch.long)}


def gpt2_static_cache():
    """GPT2LMHeadModel (tied) behind TorchExportableModuleWithStaticCache,
    non-strict: the cache becomes lifted constants (see _rebinding)."""
    t = _quiet()
    from transformers.integrations.executorch import TorchExportableModuleWithStaticCache
    cfg = t.GPT2Config(vocab_size=VOCAB, n_positions=32, n_embd=32, n_layer=2, n_head=2,
                       use_cache=True)
    m = _eval(t.GPT2LMHeadModel(cfg))
    m.generation_config.use_cache = True
    m.generation_config.cache_implementation = "static"
    w = _eval(TorchExportableModuleWithStaticCache(m, batch_size=1, max_cache_len=16))
    return w, (), {"input_ids": torch.tensor([[3]], dtype=torch.long),
                   "cache_position": torch.tensor([0], dtype=torch.long)}


# ---- encoders ---------------------------------------------------------------

def bert():
    """BertModel with its pooler: input_ids, attention_mask, token_type_ids."""
    t = _quiet()
    cfg = t.BertConfig(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2,
                       num_attention_heads=2, intermediate_size=64,
                       max_position_embeddings=32)
    m = _eval(t.BertModel(cfg))
    ids = _ids()
    return m, (ids,), {"attention_mask": torch.ones_like(ids),
                       "token_type_ids": torch.zeros_like(ids), "return_dict": False}


def bert_dict_output():
    """BertModel returning its BaseModelOutputWithPoolingAndCrossAttentions
    (transformers registers ModelOutput classes as pytree nodes), called
    with keyword inputs only, as users export it with dynamic shapes."""
    t = _quiet()
    cfg = t.BertConfig(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2,
                       num_attention_heads=2, intermediate_size=64,
                       max_position_embeddings=32)
    m = _eval(t.BertModel(cfg))
    ids = _ids()
    return m, (), {"input_ids": ids, "attention_mask": torch.ones_like(ids)}


def vit():
    """ViTForImageClassification, 32x32 images in 8x8 patches."""
    t = _quiet()
    cfg = t.ViTConfig(image_size=32, patch_size=8, num_channels=3, hidden_size=32,
                      num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                      num_labels=10)
    m = _eval(t.ViTForImageClassification(cfg))
    return m, (torch.randn(1, 3, 32, 32),), {"return_dict": False}


class WhisperEncoderOnly(nn.Module):
    """Whisper's encoder alone (the half a speech pipeline exports apart),
    returning last_hidden_state: the child is WhisperModel's encoder."""

    def __init__(self, encoder):
        super().__init__()
        self.encoder = encoder

    def forward(self, input_features):
        return self.encoder(input_features=input_features).last_hidden_state


def _whisper(t):
    cfg = t.WhisperConfig(vocab_size=VOCAB, num_mel_bins=16, d_model=32,
                          encoder_layers=2, decoder_layers=2,
                          encoder_attention_heads=2, decoder_attention_heads=2,
                          encoder_ffn_dim=64, decoder_ffn_dim=64,
                          max_source_positions=8, max_target_positions=16,
                          pad_token_id=0, bos_token_id=1, eos_token_id=2,
                          decoder_start_token_id=1, use_cache=False)
    return t.WhisperForConditionalGeneration(cfg)


def whisper_encoder():
    """WhisperForConditionalGeneration's encoder: two conv1d over 16 mel
    bins x 16 frames, then 8 positions."""
    t = _quiet()
    m = _whisper(t)
    w = _eval(WhisperEncoderOnly(m.get_encoder()))
    return w, (torch.randn(1, 16, 16),), {}


def whisper_full():
    """WhisperForConditionalGeneration, features + decoder_input_ids."""
    t = _quiet()
    m = _eval(_whisper(t))
    return m, (torch.randn(1, 16, 16),), {"decoder_input_ids": torch.tensor([[1, 5, 7, 9]]),
                                            "return_dict": False}


# ---- encoder-decoder ----------------------------------------------------------

def _t5_cfg(t, **kw):
    return t.T5Config(vocab_size=VOCAB, d_model=32, d_kv=8, d_ff=64, num_layers=2,
                      num_decoder_layers=2, num_heads=4, relative_attention_num_buckets=8,
                      relative_attention_max_distance=16, decoder_start_token_id=0,
                      pad_token_id=0, eos_token_id=1, use_cache=False, **kw)


def t5_encoder():
    """T5's encoder as transformers' Seq2SeqLMEncoderExportableModule wraps
    it (the half Seq2SeqLMExportableModule exports first)."""
    t = _quiet()
    from transformers.integrations.executorch import Seq2SeqLMEncoderExportableModule
    cfg = _t5_cfg(t)
    m = t.T5ForConditionalGeneration(cfg)
    w = _eval(Seq2SeqLMEncoderExportableModule(m.get_encoder()))
    return w, (_ids(),), {}


def t5_encoder_model():
    """T5EncoderModel, as users export it for embeddings."""
    t = _quiet()
    m = _eval(t.T5EncoderModel(_t5_cfg(t)))
    return m, (_ids(),), {"return_dict": False}


def t5_decoder_static_cache():
    """T5's decoder + lm_head as transformers'
    Seq2SeqLMDecoderExportableModuleWithStaticCache wraps it: StaticCache
    for self-attention registered as buffers (updated in place), a
    DynamicCache for cross-attention, one decoder token in."""
    t = _quiet()
    from transformers.integrations.executorch import \
        Seq2SeqLMDecoderExportableModuleWithStaticCache
    cfg = _t5_cfg(t)
    cfg.use_cache = True
    m = t.T5ForConditionalGeneration(cfg)
    w = _eval(Seq2SeqLMDecoderExportableModuleWithStaticCache(m, max_static_cache_length=16,
                                                              batch_size=1))
    return w, (torch.tensor([[0]], dtype=torch.long), torch.randn(1, SEQ, 32),
               torch.tensor([0], dtype=torch.long)), {}


def t5_full():
    """T5ForConditionalGeneration with decoder_input_ids: encoder, decoder
    and lm_head (tied to `shared`, which both stacks' embed_tokens share)."""
    t = _quiet()
    m = _eval(t.T5ForConditionalGeneration(_t5_cfg(t)))
    return m, (_ids(),), {"decoder_input_ids": torch.tensor([[0, 4, 6, 8]]),
                         "return_dict": False}


# ---- more: module reuse, towers, experts, caches as inputs -------------------

def albert():
    """AlbertModel: one layer group whose AlbertLayer is called for every
    hidden layer (num_hidden_layers=3, num_hidden_groups=1), so unflatten
    sees albert_layer_groups.0 called three times (name@1, name@2)."""
    t = _quiet()
    cfg = t.AlbertConfig(vocab_size=VOCAB, embedding_size=16, hidden_size=32,
                         num_hidden_layers=3, num_hidden_groups=1, num_attention_heads=2,
                         intermediate_size=64, max_position_embeddings=32)
    m = _eval(t.AlbertModel(cfg))
    ids = _ids()
    return m, (ids,), {"attention_mask": torch.ones_like(ids), "return_dict": False}


def bart():
    """BartForConditionalGeneration: shared embedding (model.shared, both
    stacks' embed_tokens, lm_head tied to it), encoder + decoder."""
    t = _quiet()
    cfg = t.BartConfig(vocab_size=VOCAB, d_model=32, encoder_layers=2, decoder_layers=2,
                       encoder_attention_heads=2, decoder_attention_heads=2,
                       encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=32,
                       pad_token_id=1, bos_token_id=0, eos_token_id=2,
                       decoder_start_token_id=2, forced_eos_token_id=None, use_cache=False)
    m = _eval(t.BartForConditionalGeneration(cfg))
    return m, (_ids(),), {"decoder_input_ids": torch.tensor([[2, 4, 6, 8]]),
                          "return_dict": False}


def clip():
    """CLIPModel: a text tower and a vision tower, logits per image/text."""
    t = _quiet()
    cfg = t.CLIPConfig(
        text_config=dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64,
                         num_hidden_layers=2, num_attention_heads=2,
                         max_position_embeddings=16, projection_dim=16),
        vision_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                           num_attention_heads=2, image_size=32, patch_size=8,
                           projection_dim=16),
        projection_dim=16)
    m = _eval(t.CLIPModel(cfg))
    ids = _ids(batch=2)
    return m, (ids, torch.randn(1, 3, 32, 32)), {"attention_mask": torch.ones_like(ids),
                                                  "return_dict": False}


def mixtral():
    """MixtralForCausalLM: sparse mixture of experts (4 experts, top-2)."""
    t = _quiet()
    cfg = t.MixtralConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64,
                          num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                          num_local_experts=4, num_experts_per_tok=2,
                          max_position_embeddings=64, use_cache=False)
    m = _eval(t.MixtralForCausalLM(cfg))
    return m, (_ids(),), {"return_dict": False}


def qwen2_dynamic_cache():
    """Qwen2ForCausalLM exported as transformers' export_with_dynamic_cache
    does: an empty DynamicCache passed in (registered as a pytree node by
    register_dynamic_cache_export_support), ModelOutput out (logits and the
    filled cache)."""
    t = _quiet()
    from transformers.cache_utils import DynamicCache
    from transformers.integrations.executorch import register_dynamic_cache_export_support
    register_dynamic_cache_export_support()
    cfg = t.Qwen2Config(vocab_size=VOCAB, hidden_size=32, intermediate_size=64,
                        num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                        max_position_embeddings=64)
    m = _eval(t.Qwen2ForCausalLM(cfg))
    ids = _ids()
    return m, (), {"input_ids": ids, "attention_mask": torch.ones_like(ids),
                   "cache": DynamicCache(config=m.config), "use_cache": True}


def gemma3_hybrid_cache():
    """Gemma3ForCausalLM (tied embeddings, sliding-window and global layers)
    behind transformers' TorchExportableModuleWithHybridCache, cache
    rebound to its buffers (see _rebinding)."""
    t = _quiet()
    from transformers.integrations.executorch import TorchExportableModuleWithHybridCache
    cfg = t.Gemma3TextConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64,
                             num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1,
                             head_dim=16, max_position_embeddings=64, sliding_window=4,
                             sliding_window_pattern=2, use_cache=True)
    m = _eval(t.Gemma3ForCausalLM(cfg))
    w = _eval(_rebinding(TorchExportableModuleWithHybridCache)(m, batch_size=1, max_cache_len=16))
    return w, (), {"input_ids": torch.tensor([[3]], dtype=torch.long),
                   "cache_position": torch.tensor([0], dtype=torch.long)}


def mixtral_static_cache():
    """MixtralForCausalLM (top-2 of 4 experts) behind transformers'
    TorchExportableModuleWithStaticCache, the cache rebound to its buffers
    (see _rebinding): MoE routing and a static KV cache in one decode step."""
    t = _quiet()
    from transformers.integrations.executorch import TorchExportableModuleWithStaticCache
    cfg = t.MixtralConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64,
                          num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                          num_local_experts=4, num_experts_per_tok=2,
                          max_position_embeddings=64, use_cache=True)
    m = _eval(t.MixtralForCausalLM(cfg))
    m.generation_config.use_cache = True
    m.generation_config.cache_implementation = "static"
    w = _eval(_rebinding(TorchExportableModuleWithStaticCache)(m, batch_size=1, max_cache_len=16))
    return w, (), {"input_ids": torch.tensor([[3]], dtype=torch.long),
                   "cache_position": torch.tensor([0], dtype=torch.long)}


def swin():
    """SwinForImageClassification: windowed attention, shifted windows,
    patch merging (a windowed vision transformer)."""
    t = _quiet()
    cfg = t.SwinConfig(image_size=32, patch_size=4, num_channels=3, embed_dim=16,
                       depths=[2, 1], num_heads=[2, 2], window_size=4, num_labels=10)
    m = _eval(t.SwinForImageClassification(cfg))
    return m, (torch.randn(1, 3, 32, 32),), {"return_dict": False}


def wav2vec2():
    """Wav2Vec2Model: the convolutional feature encoder over raw audio, the
    positional conv embedding, a transformer encoder (an audio encoder)."""
    t = _quiet()
    cfg = t.Wav2Vec2Config(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                           intermediate_size=64, conv_dim=(16, 16), conv_stride=(5, 2),
                           conv_kernel=(10, 3), num_conv_pos_embeddings=16,
                           num_conv_pos_embedding_groups=2, vocab_size=VOCAB)
    m = _eval(t.Wav2Vec2Model(cfg))
    return m, (torch.randn(1, 400),), {"return_dict": False}


def siglip_vision():
    """SiglipVisionModel: the vision tower multimodal models put in front of
    their language model."""
    t = _quiet()
    cfg = t.SiglipVisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                               num_attention_heads=2, image_size=32, patch_size=8)
    m = _eval(t.SiglipVisionModel(cfg))
    return m, (torch.randn(1, 3, 32, 32),), {"return_dict": False}


# ---- the registry -------------------------------------------------------------

def programs():
    """(name, make, strict, preserve, dynamic, post) for every program; post
    (or None) is applied to the ExportedProgram before it is saved."""
    out = []

    def add(name, make, strict, preserve=(), dynamic=None, post=None):
        tag = name + ("__strict" if strict else "__nonstrict")
        if preserve:
            tag += "__preserve"
        if dynamic is not None:
            tag += "__dynamic"
        if post is not None:
            tag += "__" + post.__name__
        out.append((tag, make, strict, tuple(preserve), dynamic, post))

    def functional(ep):
        """the functional IR: run_decompositions() turns in-place buffer
        updates into BUFFER_MUTATION outputs that unflatten copies back"""
        return ep.run_decompositions()

    add("gpt2_lm", gpt2_lm, False)
    add("gpt2_lm", gpt2_lm, True)
    add("gpt2_model", gpt2_model, False, preserve=("h.0",))
    add("llama_lm", llama_lm, False)
    add("llama_lm", llama_lm, False, preserve=("model.layers.0",))
    add("llama_tied", llama_tied, False)
    add("llama_tied", llama_tied, True)
    add("llama_static_cache", llama_static_cache, True)   # convert_and_export_with_cache's default
    add("llama_static_cache", llama_static_cache, False)
    add("gpt2_static_cache", gpt2_static_cache, False)
    add("llama_kv_buffers", llama_kv_buffers, False)
    add("bert", bert, False)
    add("bert", bert, True)
    seq = torch.export.Dim("seq", min=2, max=32)
    add("bert_dict_output", bert_dict_output, False,
        dynamic={"input_ids": {1: seq}, "attention_mask": {1: seq}})
    add("vit", vit, False)
    add("vit", vit, True)
    add("whisper_encoder", whisper_encoder, False)
    add("whisper_full", whisper_full, False)
    # Seq2SeqLMExportableModule's way: strict, sequence dims dynamic up to
    # max_hidden_seq_length (gen.py does not export under torch.no_grad as
    # the recipe does; for T5 strict that keeps two aten.contiguous nodes)
    enc_seq = torch.export.Dim("encoder_seq_length", max=4096)
    add("t5_encoder", t5_encoder, True, dynamic={"input_ids": {1: enc_seq}})
    add("t5_encoder_model", t5_encoder_model, False)
    hid_seq = torch.export.Dim("encoder_hidden_seq_length", max=4096)
    add("t5_decoder_static_cache", t5_decoder_static_cache, True,
        dynamic={"decoder_input_ids": None, "encoder_hidden_states": {1: hid_seq},
                 "cache_position": None})
    add("t5_full", t5_full, False)
    add("albert", albert, False)
    add("albert", albert, True)
    add("bart", bart, False)
    add("clip", clip, False)
    add("mixtral", mixtral, False)
    add("qwen2_dynamic_cache", qwen2_dynamic_cache, False)
    add("gemma3_hybrid_cache", gemma3_hybrid_cache, False)
    add("gemma3_hybrid_cache", gemma3_hybrid_cache, True)
    # issue 25: what users export
    add("mixtral_static_cache", mixtral_static_cache, False)
    add("mixtral", mixtral, False, preserve=("model.layers.0", "model.layers.1"))
    add("llama_lm", llama_lm, True, preserve=("model.layers.0", "model.layers.1"))
    add("swin", swin, False)
    add("swin", swin, True)
    add("wav2vec2", wav2vec2, False)
    add("siglip_vision", siglip_vision, False)
    # functional IR, as a user calling run_decompositions() gets it
    for name, make, strict in (("gpt2_lm", gpt2_lm, False), ("llama_kv_buffers", llama_kv_buffers, False),
                               ("bert", bert, True), ("vit", vit, False),
                               ("whisper_encoder", whisper_encoder, False), ("t5_full", t5_full, False),
                               ("mixtral", mixtral, False),
                               ("gemma3_hybrid_cache", gemma3_hybrid_cache, True)):
        add(name, make, strict, post=functional)
    return out
