#!/usr/bin/env python3
"""make_llm.py - regenerate tests/fixtures/llm_decoder.json, a small
transformers LLM export for the viewer's headless checks.

Usage:
    $EXDB_VENV/bin/python scripts/make_llm.py [--out FILE] [--pt2 FILE.pt2]
    (a venv with torch 2.13 and transformers, e.g. EXDB_VENV=/work/main/build/venv)

Builds transformers' LlamaForCausalLM from a config (2 decoder layers,
hidden size 32, 4 heads, 2 key/value heads, vocabulary 64; random weights:
nothing is downloaded), exports it with torch.export.export (non-strict,
input_ids of shape [1, 8], no KV cache) and writes the program's
models/model.json (the part exdb reads; the weights stay out of the
repository). The stack traces name the venv the script ran in.
"""
import argparse
import io
import os
import zipfile

import torch
from transformers import LlamaConfig, LlamaForCausalLM


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(here, "..", "tests", "fixtures", "llm_decoder.json"))
    ap.add_argument("--pt2", help="also write the whole program (weights too) as a .pt2 (for the peers)")
    args = ap.parse_args()
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=32,
                      tie_word_embeddings=False, use_cache=False)
    cfg._attn_implementation = "eager"
    model = LlamaForCausalLM(cfg).eval()
    ids = torch.randint(0, cfg.vocab_size, (1, 8))
    ep = torch.export.export(model, (), {"input_ids": ids, "use_cache": False}, strict=False)
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    if args.pt2:
        with open(args.pt2, "wb") as f:
            f.write(buf.getvalue())
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as z:
        name = next(n for n in z.namelist() if n.endswith("models/model.json"))
        data = z.read(name)
    with open(args.out, "wb") as f:
        f.write(data)
    print(f"wrote {args.out}: {len(ep.graph.nodes)} nodes, torch {torch.__version__}")


if __name__ == "__main__":
    main()
