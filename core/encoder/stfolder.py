"""Write a normal sentence-transformers folder (Transformer -> mean pooling -> Normalize)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np

from .e5pack import Header


def bert_config(h: Header) -> dict[str, object]:
    return {
        "architectures": ["BertModel"],
        "model_type": "bert",
        "hidden_size": h.hidden,
        "num_hidden_layers": h.layers,
        "num_attention_heads": h.heads,
        "intermediate_size": h.ffn,
        "hidden_act": "gelu",
        "vocab_size": h.vocab,
        "max_position_embeddings": h.max_positions,
        "type_vocab_size": h.type_vocab,
        "layer_norm_eps": h.eps,
        "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1,
        "initializer_range": 0.02,
        "pad_token_id": 1,
        "position_embedding_type": "absolute",
        # Weights are stored f16 to halve the folder; compute in f32 on the CPU.
        "dtype": "float32",
        "torch_dtype": "float32",
    }


TOKENIZER_CONFIG = {
    "tokenizer_class": "XLMRobertaTokenizer",
    "model_max_length": 512,
    "bos_token": "<s>",
    "eos_token": "</s>",
    "sep_token": "</s>",
    "cls_token": "<s>",
    "unk_token": "<unk>",
    "pad_token": "<pad>",
    "mask_token": "<mask>",
    "clean_up_tokenization_spaces": True,
}

MODULES = [
    {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
    {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
]


def write(folder: Path, header: Header, tensors: dict[str, np.ndarray], tokenizer_json: bytes) -> None:
    from safetensors.numpy import save_file

    folder.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(folder / "model.safetensors"), metadata={"format": "pt"})
    _json(folder / "config.json", bert_config(header))
    (folder / "tokenizer.json").write_bytes(tokenizer_json)
    _json(folder / "tokenizer_config.json", TOKENIZER_CONFIG)
    _json(
        folder / "special_tokens_map.json",
        {k: TOKENIZER_CONFIG[k] for k in ("bos_token", "eos_token", "unk_token", "pad_token", "mask_token")},
    )
    _json(folder / "modules.json", MODULES)
    _json(folder / "sentence_bert_config.json", {"max_seq_length": 512, "do_lower_case": False})
    pooling = folder / "1_Pooling"
    pooling.mkdir(exist_ok=True)
    _json(
        pooling / "config.json",
        {
            "word_embedding_dimension": header.hidden,
            "pooling_mode_cls_token": False,
            "pooling_mode_mean_tokens": True,
            "pooling_mode_max_tokens": False,
            "pooling_mode_mean_sqrt_len_tokens": False,
        },
    )
    (folder / "2_Normalize").mkdir(exist_ok=True)


def _json(path: Path, data: object) -> None:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def replace_folder(staging: Path, final: Path) -> None:
    """Swap a finished staging folder into place; the previous model stays usable until then."""
    old = final.with_name(final.name + ".old")
    if old.exists():
        shutil.rmtree(old)
    if final.exists():
        final.rename(old)
    staging.rename(final)
    if old.exists():
        shutil.rmtree(old)
