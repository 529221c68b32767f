"""The default model's ONNX graph, written straight from its weights: no torch.

`torch.onnx.export` of the sentence-transformers model (onnx_export.py) needs torch, most of
the packaged program's size, for a graph that is nothing but a BERT encoder. This module
writes the same model with `onnx.helper` from the folder's `model.safetensors` (read with
safetensors' numpy API: the arrays e5pack.py converted), what the torch export computes, with
its vectors (within 1e-6 of the torch export's, tested), in fewer and larger nodes: the
activations as rows so that onnxruntime fuses each dense layer and its bias into a Gemm, and
self-attention as onnxruntime's fused `Attention` (LAYOUT 2: a prompt's encode is faster than
with LAYOUT 1, the torch export's nodes; `memevo bench --json`: encode_ms):

- embeddings: the word table stays float16, a Cast follows the Gather; plus token type 0;
  plus absolute positions 0..seq-1 (BertModel's, which is what the folder's config says:
  `model_type` bert, no XLM-R padding offset); then LayerNorm;
- 12 layers: self-attention (scores scaled by 1/√head_dim, the padding mask as float32's
  lowest value, softmax), output dense, residual, LayerNorm; the erf GELU FFN, residual,
  LayerNorm;
- mean pooling over the attention mask (count clipped at 1e-9) and L2 normalisation (norm
  clipped at 1e-12), as sentence-transformers' Pooling and Normalize.

Inputs `input_ids`, `attention_mask` (int64, batch × seq) and output `sentence_embedding`
(float32, batch × hidden), as onnx_encoder.py expects; or, with the word table left outside,
`word_rows` (the table's rows for the ids, batch × seq × hidden) in place of `input_ids`. `ReferenceModel` is the same
model in plain numpy (float64), the independent check the graph is compared with; and
`runtime_tokenizer_json` writes the tokenizer transformers really runs for this folder.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

OPSET = 17
IR_VERSION = 8  # what torch.onnx wrote at opset 17; every onnxruntime since 1.10 reads it
INPUTS = ("input_ids", "attention_mask")
# The graph that leaves the word table outside takes the looked-up rows instead of the ids:
# a prompt reads a few dozen of the table's 250,037 rows, and a table inside the graph is
# resident whole (onnx_encoder.py maps the table's .npy and gathers the rows itself).
WORDS_INPUT = "word_rows"
OUTPUT = "sentence_embedding"
WEIGHTS = "model.safetensors"
_FLOAT_MIN = float(np.finfo(np.float32).min)  # transformers' additive mask value
CONTRIB_DOMAIN = "com.microsoft"  # onnxruntime's own operators (Attention)
# What the graph's nodes are, in its manifest: a graph of an older layout gives the same vectors
# but is slower, and is rebuilt once (provision.graph_outdated). 1: the torch export's nodes.
LAYOUT = 2


class UnsupportedModel(ValueError):
    """A folder this builder does not reproduce exactly (it then gets no graph from here)."""


@dataclass(frozen=True)
class BertShape:
    hidden: int
    layers: int
    heads: int
    ffn: int
    eps: float
    max_positions: int

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads


def read_shape(folder: Path) -> BertShape:
    """config.json of a BERT encoder with absolute positions and erf GELU, or UnsupportedModel."""
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UnsupportedModel(f"no readable config.json in {folder}: {exc}") from exc
    wanted = {"model_type": "bert", "hidden_act": "gelu", "position_embedding_type": "absolute"}
    for key, value in wanted.items():
        if config.get(key, "absolute" if key == "position_embedding_type" else None) != value:
            raise UnsupportedModel(f"config.json {key}={config.get(key)!r}, this builder needs {value!r}")
    shape = BertShape(
        hidden=int(config["hidden_size"]),
        layers=int(config["num_hidden_layers"]),
        heads=int(config["num_attention_heads"]),
        ffn=int(config["intermediate_size"]),
        eps=float(config.get("layer_norm_eps", 1e-12)),
        max_positions=int(config["max_position_embeddings"]),
    )
    if shape.hidden % shape.heads:
        raise UnsupportedModel(f"hidden size {shape.hidden} is not a multiple of {shape.heads} heads")
    return shape


def read_max_length(folder: Path, shape: BertShape) -> int:
    """The folder must be Transformer -> mean pooling -> Normalize (what the graph computes),
    case kept; its max_seq_length (sentence-transformers' truncation), at most max_positions."""
    try:
        modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
        pooling_dir = folder / str(modules[1].get("path", "1_Pooling")) if len(modules) > 1 else folder
        pooling = json.loads((pooling_dir / "config.json").read_text(encoding="utf-8"))
        st_config = json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, AttributeError, TypeError) as exc:
        raise UnsupportedModel(f"not a readable sentence-transformers folder: {exc}") from exc
    kinds = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules]
    modes = {k: v for k, v in pooling.items() if k.startswith("pooling_mode_") and v}
    if kinds != ["Transformer", "Pooling", "Normalize"] or list(modes) != ["pooling_mode_mean_tokens"]:
        raise UnsupportedModel(f"pipeline {kinds} with {list(modes)}, not Transformer -> mean -> Normalize")
    if st_config.get("do_lower_case"):
        raise UnsupportedModel("the folder lower-cases its input")
    return min(int(st_config.get("max_seq_length") or shape.max_positions), shape.max_positions)


def load_weights(folder: Path, shape: BertShape) -> dict[str, np.ndarray]:
    """BertModel's tensors by their names (a `bert.` prefix dropped), checked against the shape."""
    from safetensors.numpy import load_file

    path = folder / WEIGHTS
    if not path.is_file():
        raise UnsupportedModel(f"no {WEIGHTS} in {folder}")
    tensors = load_file(str(path))
    out = {name.removeprefix("bert."): array for name, array in tensors.items()}
    h, f = shape.hidden, shape.ffn
    expect: dict[str, tuple[int, ...]] = {
        "embeddings.LayerNorm.weight": (h,),
        "embeddings.LayerNorm.bias": (h,),
    }
    for i in range(shape.layers):
        p = f"encoder.layer.{i}."
        for name in (
            "attention.self.query",
            "attention.self.key",
            "attention.self.value",
            "attention.output.dense",
        ):
            expect[p + name + ".weight"], expect[p + name + ".bias"] = (h, h), (h,)
        expect[p + "intermediate.dense.weight"], expect[p + "intermediate.dense.bias"] = (f, h), (f,)
        expect[p + "output.dense.weight"], expect[p + "output.dense.bias"] = (h, f), (h,)
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            expect[p + norm + ".weight"], expect[p + norm + ".bias"] = (h,), (h,)
    for name, dims in expect.items():
        if name not in out or tuple(out[name].shape) != dims:
            found = tuple(out[name].shape) if name in out else "missing"
            raise UnsupportedModel(f"{WEIGHTS}: {name} is {found}, expected {dims}")
    for name in ("word_embeddings", "position_embeddings", "token_type_embeddings"):
        table = out.get(f"embeddings.{name}.weight")
        if table is None or table.ndim != 2 or table.shape[1] != h:
            raise UnsupportedModel(f"{WEIGHTS}: embeddings.{name}.weight missing or not (n, {h})")
    return out


def weights_digest(weights: dict[str, np.ndarray]) -> str:
    """SHA-256 over every tensor the graph uses (name, dtype, shape, bytes), in name order."""
    digest = hashlib.sha256()
    for name in sorted(n for n in weights if not n.startswith("pooler.")):
        array = np.ascontiguousarray(weights[name])
        digest.update(f"{name}|{array.dtype.str}|{array.shape}\n".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def word_table(weights: dict[str, np.ndarray]) -> np.ndarray:
    """float16 when that loses nothing (the offline pack's weights are float16 anyway), as the
    sentence-transformers path kept it (encoder.halve_word_embeddings); else float32."""
    table = weights["embeddings.word_embeddings.weight"]
    if table.dtype == np.float16:
        return table
    half = table.astype(np.float16)
    return half if np.array_equal(half.astype(table.dtype), table) else table.astype(np.float32)


class _Nodes:
    """A little bookkeeping around onnx.helper: named nodes and initializers."""

    def __init__(self) -> None:
        from onnx import helper, numpy_helper

        self.helper, self.numpy_helper = helper, numpy_helper
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []

    def weight(self, name: str, array: np.ndarray) -> str:
        self.initializers.append(self.numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def op(self, op_type: str, inputs: list[str], output: str, **attributes: Any) -> str:
        self.nodes.append(self.helper.make_node(op_type, inputs, [output], name=output, **attributes))
        return output


def build_model(shape: BertShape, weights: dict[str, np.ndarray], table_outside: bool = False) -> Any:
    """The onnx ModelProto (see the module docstring for what it computes). With table_outside
    the Gather is left to the caller: input WORDS_INPUT (batch × seq × hidden, the word table's
    dtype) takes its place, and the rest of the graph is the same node for node."""
    from onnx import TensorProto, helper

    g = _Nodes()
    f32 = np.float32
    h = shape.hidden

    def linear(x: str, name: str, out: str) -> str:
        w = g.weight(f"{name}.weight.T", weights[f"{name}.weight"].astype(f32).T)  # (in, out)
        b = g.weight(f"{name}.bias", weights[f"{name}.bias"].astype(f32))
        return g.op("Add", [b, g.op("MatMul", [x, w], f"{out}.matmul")], out)

    def layer_norm(x: str, name: str, out: str) -> str:
        gamma = g.weight(f"{name}.weight", weights[f"{name}.weight"].astype(f32))
        beta = g.weight(f"{name}.bias", weights[f"{name}.bias"].astype(f32))
        return g.op("LayerNormalization", [x, gamma, beta], out, axis=-1, epsilon=shape.eps)

    # constants
    zero_1d = g.weight("const.zero_1d", np.array([0], dtype=np.int64))
    two = g.weight("const.two_1d", np.array([2], dtype=np.int64))
    rows_shape = g.weight("const.rows", np.array([-1, h], dtype=np.int64))
    hidden_1d = g.weight("const.hidden_1d", np.array([h], dtype=np.int64))
    axis_1 = g.weight("const.axis_1", np.array([1], dtype=np.int64))
    axis_last = g.weight("const.axis_last", np.array([-1], dtype=np.int64))
    sqrt2 = g.weight("const.sqrt2", np.array(math.sqrt(2.0), dtype=f32))
    one_f = g.weight("const.one_f32", np.array(1.0, dtype=f32))
    half_f = g.weight("const.half_f32", np.array(0.5, dtype=f32))
    tiny_count = g.weight("const.min_count", np.array(1e-9, dtype=f32))
    tiny_norm = g.weight("const.min_norm", np.array(1e-12, dtype=f32))

    # embeddings: (word + token type 0) + position, then LayerNorm
    table = word_table(weights)
    if table_outside:
        words = WORDS_INPUT
    else:
        words = g.op("Gather", [g.weight("embeddings.word_embeddings.weight", table), INPUTS[0]], "emb.word")
    if table.dtype != f32:
        words = g.op("Cast", [words], "emb.word.f32", to=TensorProto.FLOAT)
    token_type = weights["embeddings.token_type_embeddings.weight"][0].astype(f32)
    x = g.op("Add", [words, g.weight("embeddings.token_type_embeddings.row0", token_type)], "emb.typed")
    # positions 0..seq-1: the first seq rows of the table (a Slice, as torch's export does;
    # a Gather over a Range is rewritten by onnxruntime into a Slice it then rejects)
    batch_seq = g.op("Shape", [INPUTS[1]], "emb.shape")  # the mask's: batch × seq, as the ids'
    seq = g.op("Slice", [batch_seq, axis_1, two], "emb.seq")
    pos_table = g.weight(
        "embeddings.position_embeddings.weight", weights["embeddings.position_embeddings.weight"]
    )
    positions = g.op("Slice", [pos_table, zero_1d, seq, zero_1d], "emb.pos")
    x = g.op("Add", [x, positions], "emb.sum")
    x = layer_norm(x, "embeddings.LayerNorm", "emb.out")
    # From here the activations are rows (batch·seq × hidden): onnxruntime then fuses each dense
    # layer's MatMul and bias into one Gemm. Attention takes and gives batch × seq × hidden.
    tokens_shape = g.op("Concat", [batch_seq, hidden_1d], "tokens.shape", axis=0)
    x = g.op("Reshape", [x, rows_shape], "emb.rows")
    # the padding mask as onnxruntime's Attention takes it (1 attended, 0 not; masked scores
    # get float32's lowest value, as transformers' additive mask)
    mask = g.op("Cast", [INPUTS[1]], "mask.int32", to=TensorProto.INT32)

    for i in range(shape.layers):
        p, n = f"encoder.layer.{i}.", f"l{i}."
        # self-attention as one node: Q, K and V from one weight (in × 3·hidden), split into
        # heads, scores scaled by 1/√head_dim, masked, softmax, context joined again
        names = [f"{p}attention.self.{part}" for part in ("query", "key", "value")]
        qkv_w = np.concatenate([weights[f"{name}.weight"].astype(f32).T for name in names], axis=1)
        qkv_b = np.concatenate([weights[f"{name}.bias"].astype(f32) for name in names])
        tokens = g.op("Reshape", [x, tokens_shape], n + "tokens")
        context = g.op(
            "Attention",
            [tokens, g.weight(n + "qkv.weight", qkv_w), g.weight(n + "qkv.bias", qkv_b), mask],
            n + "context",
            domain=CONTRIB_DOMAIN,
            num_heads=shape.heads,
            mask_filter_value=_FLOAT_MIN,
        )
        context = g.op("Reshape", [context, rows_shape], n + "context.rows")
        attended = linear(context, p + "attention.output.dense", n + "attn.dense")
        x = layer_norm(
            g.op("Add", [attended, x], n + "attn.residual"), p + "attention.output.LayerNorm", n + "attn.out"
        )
        inner = linear(x, p + "intermediate.dense", n + "ffn.in")
        erf = g.op("Erf", [g.op("Div", [inner, sqrt2], n + "gelu.scaled")], n + "gelu.erf")
        gelu = g.op("Mul", [inner, g.op("Add", [erf, one_f], n + "gelu.erf1")], n + "gelu.mul")
        gelu = g.op("Mul", [gelu, half_f], n + "gelu")
        outer = linear(gelu, p + "output.dense", n + "ffn.out")
        x = layer_norm(g.op("Add", [outer, x], n + "ffn.residual"), p + "output.LayerNorm", n + "out")
    x = g.op("Reshape", [x, tokens_shape], "out.tokens")

    # mean pooling over the mask, then L2 normalisation
    weight = g.op(
        "Cast", [g.op("Unsqueeze", [INPUTS[1], axis_last], "pool.mask3")], "pool.maskf", to=TensorProto.FLOAT
    )
    summed = g.op("ReduceSum", [g.op("Mul", [x, weight], "pool.masked"), axis_1], "pool.sum", keepdims=0)
    count = g.op(
        "Clip", [g.op("ReduceSum", [weight, axis_1], "pool.count", keepdims=0), tiny_count], "pool.countc"
    )
    mean = g.op("Div", [summed, count], "pool.mean")
    norm = g.op(
        "Clip", [g.op("ReduceL2", [mean], "pool.norm", axes=[1], keepdims=1), tiny_norm], "pool.normc"
    )
    g.op("Div", [mean, norm], OUTPUT)

    inputs = [helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "seq"]) for name in INPUTS]
    if table_outside:
        rows_type = helper.np_dtype_to_tensor_dtype(table.dtype)
        inputs[0] = helper.make_tensor_value_info(WORDS_INPUT, rows_type, ["batch", "seq", h])
    graph = helper.make_graph(
        g.nodes,
        "memevo-bert-mean-normalize",
        inputs,
        [helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT, ["batch", h])],
        initializer=g.initializers,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid(CONTRIB_DOMAIN, 1)],
        producer_name="memevo onnx_build",
        ir_version=IR_VERSION,
    )
    return model


def save_graph(model: Any, target: Path, data_name: str) -> None:
    """The graph to target and its initializers to data_name beside it: onnxruntime maps an
    external data file where a graph's own bytes would be read into the heap and kept."""
    import onnx

    onnx.save_model(
        model, str(target), save_as_external_data=True, all_tensors_to_one_file=True, location=data_name
    )


def write_graph(folder: Path, target: Path) -> dict[str, Any]:
    """Read the folder's weights, write the graph to target (its initializers to target.data,
    the word table to target.npy); what was built, for the manifest."""
    import onnx

    shape = read_shape(folder)
    weights = load_weights(folder, shape)
    model = build_model(shape, weights, table_outside=True)
    onnx.checker.check_model(model)  # structure only; under 2 GB it runs in memory
    save_graph(model, target, target.name + ".data")
    np.save(target.with_suffix(".npy"), word_table(weights))
    return {
        "dim": shape.hidden,
        "word_table": str(word_table(weights).dtype),
        "weights_sha256": weights_digest(weights),
    }


# -- the same model in numpy: the graph's independent check ----------------------------------
# Numerical Recipes' erfc fit, fractional error below 1.2e-7: the Horner coefficients, highest first
_ERFC_FIT = (
    0.17087277, -0.82215223, 1.48851587, -1.13520398, 0.27886807,
    -0.18628806, 0.09678418, 0.37409196, 1.00002368, -1.26551223,
)  # fmt: skip


def _erf(x: np.ndarray) -> np.ndarray:
    """erf to ~1.2e-7 (numpy has none, and scipy is not a dependency)."""
    z = np.abs(x)
    t = 1.0 / (1.0 + 0.5 * z)
    poly = np.zeros_like(z)
    for coefficient in _ERFC_FIT:
        poly = poly * t + coefficient
    result: np.ndarray = np.sign(x) * (1.0 - t * np.exp(poly - z * z))
    return result


class ReferenceModel:
    """The same model in float64 numpy, one unpadded sequence at a time."""

    def __init__(self, shape: BertShape, weights: dict[str, np.ndarray]) -> None:
        self.shape = shape
        self.table = weights["embeddings.word_embeddings.weight"]
        skip = ("pooler.", "embeddings.word_embeddings.")
        self.w = {name: a.astype(np.float64) for name, a in weights.items() if not name.startswith(skip)}

    def _dense(self, y: np.ndarray, name: str) -> np.ndarray:
        result: np.ndarray = y @ self.w[name + ".weight"].T + self.w[name + ".bias"]
        return result

    def _norm(self, y: np.ndarray, name: str) -> np.ndarray:
        mean = y.mean(-1, keepdims=True)
        var = ((y - mean) ** 2).mean(-1, keepdims=True)
        result: np.ndarray = (y - mean) / np.sqrt(var + self.shape.eps) * self.w[name + ".weight"]
        return result + self.w[name + ".bias"]

    def vector(self, ids: list[int]) -> np.ndarray:
        """The normalised mean-pooled vector of one sequence of token ids."""
        w, shape, n = self.w, self.shape, len(ids)
        heads, size = shape.heads, shape.head_dim
        x = self.table[np.asarray(ids, dtype=np.int64)].astype(np.float64)
        x = (
            x
            + w["embeddings.token_type_embeddings.weight"][0]
            + w["embeddings.position_embeddings.weight"][:n]
        )
        x = self._norm(x, "embeddings.LayerNorm")
        for i in range(shape.layers):
            p = f"encoder.layer.{i}."
            q, k, v = (
                self._dense(x, p + f"attention.self.{m}").reshape(n, heads, size).transpose(1, 0, 2)
                for m in ("query", "key", "value")
            )
            scores = q @ k.transpose(0, 2, 1) / math.sqrt(size)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            context = (scores / scores.sum(-1, keepdims=True)) @ v
            attended = self._dense(
                context.transpose(1, 0, 2).reshape(n, shape.hidden), p + "attention.output.dense"
            )
            x = self._norm(attended + x, p + "attention.output.LayerNorm")
            inner = self._dense(x, p + "intermediate.dense")
            outer = self._dense(inner * 0.5 * (1.0 + _erf(inner / math.sqrt(2.0))), p + "output.dense")
            x = self._norm(outer + x, p + "output.LayerNorm")
        mean = x.mean(0)
        vector: np.ndarray = (mean / max(float(np.linalg.norm(mean)), 1e-12)).astype(np.float32)
        return vector


# -- the tokenizer transformers runs --------------------------------------------------------
def runtime_tokenizer_json(folder: Path) -> str:
    """The tokenizer sentence-transformers runs for an XLM-R vocabulary, without transformers.

    transformers (5.x, XLMRobertaTokenizer) does not run the folder's tokenizer.json as it is:
    it rebuilds it from the file's Unigram vocabulary and precompiled character map with its
    own pipeline: normaliser Precompiled only (the file's collapsing of repeated spaces goes),
    pre-tokeniser WhitespaceSplit then Metaspace (prepend always), decoder Metaspace, the
    <s> … </s> template, byte fallback off. This writes that rebuild; a test compares it with
    what transformers itself produces, field for field."""
    data = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
    model = data.get("model")
    if not isinstance(model, dict) or model.get("type") != "Unigram" or model.get("unk_id") != 3:
        raise UnsupportedModel("tokenizer.json is not an XLM-R Unigram vocabulary")
    if model.get("byte_fallback"):
        raise UnsupportedModel("tokenizer.json uses byte fallback")
    normalizer = data.get("normalizer") or {}
    parts = normalizer.get("normalizers", []) if normalizer.get("type") == "Sequence" else [normalizer]
    charsmaps = [p for p in parts if isinstance(p, dict) and p.get("type") == "Precompiled"]
    if len(charsmaps) != 1:
        raise UnsupportedModel("tokenizer.json has no single precompiled character map")
    specials = {token["content"]: token["id"] for token in data.get("added_tokens") or []}
    if specials.get("<s>") != 0 or specials.get("</s>") != 2:
        raise UnsupportedModel("tokenizer.json lacks XLM-R's <s> = 0 and </s> = 2")
    metaspace = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True}
    data["truncation"] = data["padding"] = None
    data["normalizer"] = charsmaps[0]
    data["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, metaspace]}
    data["decoder"] = metaspace
    bos, eos = {"SpecialToken": {"id": "<s>", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}
    data["post_processor"] = {
        "type": "TemplateProcessing",
        "single": [bos, {"Sequence": {"id": "A", "type_id": 0}}, eos],
        "pair": [
            bos,
            {"Sequence": {"id": "A", "type_id": 0}},
            eos,
            eos,
            {"Sequence": {"id": "B", "type_id": 0}},
            eos,
        ],
        "special_tokens": {
            "</s>": {"id": "</s>", "ids": [2], "tokens": ["</s>"]},
            "<s>": {"id": "<s>", "ids": [0], "tokens": ["<s>"]},
        },
    }
    data["model"] = {"type": "Unigram", "unk_id": 3, "vocab": model["vocab"], "byte_fallback": False}
    return json.dumps(data, ensure_ascii=False)
