"""Networks as text: the command line's ``--layers`` specification and the ``--network`` JSON file.

``--layers``: layers separated by ``;``, each a kind and its options, with an optional repeat ``2x``::

    attn a=2 heads=2 skip; mlp w=8 r=2 skip          attention (+ skip), then an MLP (+ skip)
    2x block a=8 heads=2 w=48 r=2                     two standard blocks (skips on; 'noskip' drops them)

attn/attention: ``a=`` rank (required), ``out=`` output width, ``heads=``, ``b=`` value rank, ``causal``,
``skip``. mlp: ``w=`` width (required), ``r=`` degree (default 2), ``out=``, ``skip``. block: the attention
and MLP options together, ``noskip``. Widths chain from ``--dims D0`` (the input width).

dense: ``w=`` output width (required), ``r=`` activation degree (default 1: linear). conv1d/conv2d: ``c=``
output channels (default 1), ``k=`` filter size (required; ``k=2x2`` in 2-D), ``s=`` stride (default 1), ``r=``,
``in=`` input shape (``in=1x4x4``; a 1-D convolution reads a flat input as one channel).

``--network FILE``: a JSON list of layers (or ``{"layers": [...]}``), each an object with ``kind``
("attention", "mlp", "dense", "conv1d", "conv2d"), ``d_in``, ``d_out``, and for attention ``rank``, ``heads``,
``value_rank``, ``causal``, ``residual``, for an MLP ``width``, ``degree``, ``residual``, for dense ``degree``,
for a convolution ``out_channels``, ``kernel_size``, ``stride``, ``degree``, ``in_shape``; omitted keys take
the defaults. Or PyTorch's names: ``{"input": [5], "layers": [{"kind": "linear", "out_features": 14},
{"kind": "power", "degree": 4}, {"kind": "linear", "out_features": 1}]}`` with ``conv1d``/``conv2d``
(``out_channels``, ``kernel_size``, ``stride``; no bias, no padding) and the input's shape [features],
[channels, length] or [channels, height, width].
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from m2bridge.errors import ArchitectureError
from m2bridge.layers.attention import Attention
from m2bridge.layers.base import LayerKind
from m2bridge.layers.conv import Conv
from m2bridge.layers.dense import Dense
from m2bridge.layers.mlp import MLP

_ATTN_KEYS = {"a": "rank", "rank": "rank", "out": "d_out", "d_out": "d_out", "heads": "heads", "h": "heads",
              "b": "value_rank", "value_rank": "value_rank"}
_MLP_KEYS = {"w": "width", "width": "width", "r": "degree", "degree": "degree", "out": "d_out", "d_out": "d_out"}
_KINDS = {"attn": "attention", "attention": "attention", "mlp": "mlp", "block": "block", "dense": "dense",
          "conv1d": "conv1d", "conv2d": "conv2d"}
HELP = ("layers separated by ';': 'attn a=A [heads=H] [b=B] [out=D] [causal] [skip]', "
        "'mlp w=W [r=R] [out=D] [skip]', 'block a=A w=W [r=R] [heads=H] [noskip]' (attention + MLP, skips on), "
        "'dense w=W [r=R]' ((W z)^R), 'conv1d c=C k=K [s=S] [r=R] [in=CxL]', 'conv2d c=C k=K1xK2 [s=S1xS2] [r=R] "
        "[in=CxHxW]' (valid correlations, no bias); '2x ...' repeats; widths chain from --dims D0")


def _field_layer(kind: str, part: str, words: list[str]) -> LayerKind:
    """A dense or convolutional layer from its ``key=value`` words."""
    values: dict[str, str] = {}
    for word in words:
        if "=" not in word:
            raise ArchitectureError(f"--layers: unknown flag {word!r} for {kind} in '{part}'; " + HELP)
        key, value = word.split("=", 1)
        allowed = ("w", "r") if kind == "dense" else ("c", "k", "s", "r", "in")
        if key not in allowed:
            raise ArchitectureError(f"--layers: unknown option {key!r} for {kind} in '{part}' (options: "
                                    f"{', '.join(k + '=' for k in allowed)}); " + HELP)
        values[key] = value

    def ints(key: str) -> tuple[int, ...]:
        try:
            return tuple(int(v) for v in values[key].replace(",", "x").split("x"))
        except ValueError:
            raise ArchitectureError(f"--layers: in '{part}', {key}={values[key]!r} is not an integer "
                                    "(or integers joined by x)") from None

    need = "w" if kind == "dense" else "k"
    if need not in values:
        raise ArchitectureError(f"--layers: '{part}' needs {'the output width w=' if kind == 'dense' else 'the filter size k='}...")
    degree = _integer(part, "r", values["r"]) if "r" in values else 1
    if kind == "dense":
        return Dense(_integer(part, "w", values["w"]), degree)
    kernel = ints("k")
    nd = 1 if kind == "conv1d" else 2
    if len(kernel) not in (1, nd):
        raise ArchitectureError(f"--layers: in '{part}', a {kind} filter size is k=K{'' if nd == 1 else ' or k=K1xK2'}")
    return Conv(_integer(part, "c", values["c"]) if "c" in values else 1, kernel * (nd // len(kernel)),
                ints("s") if "s" in values else 1, degree, in_shape=ints("in") if "in" in values else None)


def _integer(part: str, key: str, value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise ArchitectureError(f"--layers: in '{part}', {key}={value!r} is not an integer") from None


def _one(part: str) -> list[LayerKind]:
    words = part.split()
    repeat = 1
    if words and re.fullmatch(r"\d+x", words[0]):
        repeat = int(words[0][:-1])
        words = words[1:]
        if repeat < 1:
            raise ArchitectureError(f"--layers: in '{part}', the repeat must be at least 1x")
    if not words or words[0] not in _KINDS:
        kind = words[0] if words else ""
        raise ArchitectureError(f"--layers: '{part}' must start with attn, mlp or block, or dense, conv1d, "
                                f"conv2d (got {kind!r}); " + HELP)
    kind = _KINDS[words[0]]
    if kind in ("dense", "conv1d", "conv2d"):
        try:
            return [_field_layer(kind, part, words[1:])] * repeat
        except ArchitectureError as exc:
            text = str(exc)
            raise ArchitectureError(text if text.startswith("--layers") else f"--layers: in '{part}': {text}") from None
    attn: dict[str, Any] = {}
    mlp: dict[str, Any] = {}
    skip = kind == "block"
    for word in words[1:]:
        if "=" in word:
            key, value = word.split("=", 1)
            if kind in ("attention", "block") and key in _ATTN_KEYS and not (kind == "block" and key in ("out", "d_out")):
                attn[_ATTN_KEYS[key]] = _integer(part, key, value)
            elif kind in ("mlp", "block") and key in _MLP_KEYS and not (kind == "block" and key in ("out", "d_out")):
                mlp[_MLP_KEYS[key]] = _integer(part, key, value)
            else:
                raise ArchitectureError(f"--layers: unknown option {key!r} for {kind} in '{part}'; " + HELP)
        elif word in ("skip", "residual"):
            skip = True
        elif word == "noskip" and kind == "block":
            skip = False
        elif word == "causal" and kind in ("attention", "block"):
            attn["causal"] = True
        else:
            raise ArchitectureError(f"--layers: unknown flag {word!r} for {kind} in '{part}'; " + HELP)
    if kind in ("attention", "block") and "rank" not in attn:
        raise ArchitectureError(f"--layers: '{part}' needs the attention rank a=...")
    if kind in ("mlp", "block") and "width" not in mlp:
        raise ArchitectureError(f"--layers: '{part}' needs the MLP width w=...")
    if kind == "attention":
        layers: list[LayerKind] = [Attention(residual=skip, **attn)]
    elif kind == "mlp":
        layers = [MLP(residual=skip, **mlp)]
    else:
        layers = [Attention(residual=skip, **attn), MLP(residual=skip, **mlp)]
    return layers * repeat


def parse_layers(text: str) -> list[LayerKind]:
    """The layers of a ``--layers`` specification (widths left to the network)."""
    parts = [p.strip() for p in text.split(";")]
    if not any(parts):
        raise ArchitectureError("--layers is empty; " + HELP)
    if any(not p for p in parts):
        raise ArchitectureError(f"--layers {text!r} has an empty layer between ';' separators")
    return [layer for part in parts for layer in _one(part)]


_FILE_KEYS = {"attention": {"kind", "d_in", "d_out", "rank", "heads", "value_rank", "causal", "residual"},
              "mlp": {"kind", "d_in", "d_out", "width", "degree", "residual"},
              "dense": {"kind", "d_in", "d_out", "degree"},
              "conv1d": {"kind", "in_shape", "out_channels", "kernel_size", "stride", "degree", "in_channels"},
              "conv2d": {"kind", "in_shape", "out_channels", "kernel_size", "stride", "degree", "in_channels"}}
_CONV_NAMES = {"out_channels": "out_channels", "kernel_size": "kernel", "stride": "stride", "degree": "degree",
               "in_shape": "in_shape", "in_channels": "in_channels"}
_TORCH_KEYS = {"linear": {"kind", "out_features", "in_features", "bias"},
               "conv1d": {"kind", "out_channels", "kernel_size", "stride", "in_channels", "bias", "padding"},
               "conv2d": {"kind", "out_channels", "kernel_size", "stride", "in_channels", "bias", "padding"},
               "power": {"kind", "degree"}}


def _torch_layers(data: dict[str, Any], source: str) -> list[LayerKind]:
    """Layers from PyTorch's names: ``{"input": shape, "layers": [linear, conv1d, conv2d, power, ...]}``, each
    activation x^r (``power``) folded into the layer before it."""
    shape = data["input"]
    if (not isinstance(shape, list) or not 1 <= len(shape) <= 3
            or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in shape)):
        raise ArchitectureError(f"{source}: 'input' is the shape of one input, [features], [channels, length] or "
                                f"[channels, height, width] (positive integers), got {json.dumps(shape)[:60]}")
    extra = set(data) - {"input", "layers"}
    if extra:
        raise ArchitectureError(f"{source}: unknown key(s) {sorted(extra)} beside 'input' and 'layers'")
    items = data["layers"]
    if not isinstance(items, list) or not items:
        raise ArchitectureError(f"{source}: 'layers' must be a non-empty list of layers")
    out: list[LayerKind] = []
    for i, item in enumerate(items, start=1):
        kind = item.get("kind") if isinstance(item, dict) else None
        if kind not in _TORCH_KEYS:
            raise ArchitectureError(f"{source}: layer {i} must be an object with 'kind' one of "
                                    f"{', '.join(sorted(_TORCH_KEYS))}, got {json.dumps(item)[:80]}")
        unknown = set(item) - _TORCH_KEYS[kind]
        if unknown:
            raise ArchitectureError(f"{source}: layer {i} ({kind}) has unknown key(s) {sorted(unknown)}; allowed: "
                                    f"{sorted(_TORCH_KEYS[kind])}")
        if item.get("bias", False) is not False or item.get("padding", 0) not in (0, [0], [0, 0]):
            raise ArchitectureError(f"{source}: layer {i} ({kind}): only bias false and padding 0 (valid "
                                    "correlations without bias) are polynomial networks here")
        try:
            if kind == "power":
                if not out or not isinstance(out[-1], (Dense, Conv)) or out[-1].degree != 1:
                    raise ArchitectureError("a power follows a linear or convolutional layer (one per layer)")
                out[-1] = replace(out[-1], degree=item.get("degree", 2))
            elif kind == "linear":
                if "out_features" not in item:
                    raise ArchitectureError("a linear layer needs 'out_features'")
                first = {"d_in": math.prod(shape)} if not out else {}
                if "in_features" in item:
                    first["d_in"] = item["in_features"]
                out.append(Dense(item["out_features"], **first))
            else:
                if "kernel_size" not in item:
                    raise ArchitectureError(f"a {kind} layer needs 'kernel_size'")
                nd = 1 if kind == "conv1d" else 2
                kernel = item["kernel_size"]
                kernel = [kernel] * nd if isinstance(kernel, int) else kernel
                if not isinstance(kernel, list) or len(kernel) != nd:
                    raise ArchitectureError(f"a {kind} layer's 'kernel_size' is {'k' if nd == 1 else '[k1, k2]'}")
                in_shape = None
                if not out:
                    in_shape = tuple(shape) if len(shape) == nd + 1 else (1, shape[0]) if nd == len(shape) == 1 else None
                    if in_shape is None:
                        raise ArchitectureError(f"a {kind} layer reads an input [channels, "
                                                f"{'length' if nd == 1 else 'height, width'}], got {shape}")
                out.append(Conv(item.get("out_channels", 1), tuple(kernel), _tuple(item.get("stride", 1)),
                                in_shape=in_shape,
                                in_channels=item.get("in_channels")))
        except ArchitectureError as exc:
            raise ArchitectureError(f"{source}: layer {i} ({kind}): {exc}") from None
    if len(shape) > 1 and not isinstance(out[0], Conv):
        out[0] = replace(out[0], d_in=math.prod(shape))
    return out


def _tuple(v: Any) -> Any:
    return tuple(v) if isinstance(v, list) else v


def layers_from_json(data: Any, source: str = "the network") -> list[LayerKind]:
    """Layers from the JSON form (a list of objects, or an object with ``layers``; with ``input``, PyTorch's names)."""
    if isinstance(data, dict) and "input" in data and "layers" in data:
        return _torch_layers(data, source)
    if isinstance(data, dict) and "layers" in data:
        data = data["layers"]
    if not isinstance(data, list) or not data:
        raise ArchitectureError(f"{source}: expected a JSON list of layers (objects with 'kind': 'attention' or "
                                "'mlp'), or an object with a 'layers' list")
    out: list[LayerKind] = []
    for i, item in enumerate(data, start=1):
        if not isinstance(item, dict) or item.get("kind") not in _FILE_KEYS:
            raise ArchitectureError(f"{source}: layer {i} must be an object with 'kind' one of "
                                    f"{', '.join(_FILE_KEYS)} (or give PyTorch's names with \"input\"), "
                                    f"got {json.dumps(item)[:80]}")
        kind = item["kind"]
        unknown = set(item) - _FILE_KEYS[kind] - {"parameters"}
        if unknown:
            raise ArchitectureError(f"{source}: layer {i} ({kind}) has unknown key(s) {sorted(unknown)}; allowed: "
                                    f"{sorted(_FILE_KEYS[kind])}")
        kw = {k: v for k, v in item.items() if k not in ("kind", "parameters")}
        if kind == "attention" and "rank" not in kw:
            raise ArchitectureError(f"{source}: layer {i} (attention) needs 'rank'")
        if kind == "mlp" and "width" not in kw:
            raise ArchitectureError(f"{source}: layer {i} (mlp) needs 'width'")
        for flag in ("causal", "residual"):
            if flag in kw and not isinstance(kw[flag], bool):
                raise ArchitectureError(f"{source}: layer {i}: '{flag}' must be true or false, got {kw[flag]!r}")
        if kind.startswith("conv"):
            kw = {_CONV_NAMES[k]: _tuple(v) for k, v in kw.items()}
            if "kernel" not in kw:
                raise ArchitectureError(f"{source}: layer {i} ({kind}) needs 'kernel_size'")
            kw["kernel"] = kw["kernel"] if isinstance(kw["kernel"], tuple) else (kw["kernel"],) * int(kind[4])
        if kind == "dense" and "d_out" not in kw:
            raise ArchitectureError(f"{source}: layer {i} (dense) needs 'd_out'")
        try:
            built = {"attention": Attention, "mlp": MLP, "dense": Dense}.get(kind, Conv)
            out.append(built(**kw))
        except ArchitectureError as exc:
            raise ArchitectureError(f"{source}: layer {i}: {exc}") from None
    return out


def load_network_file(path: str | Path) -> list[LayerKind]:
    """Layers from a ``--network`` JSON file, with one clear error for a missing or malformed file."""
    p = Path(path)
    try:
        text = p.read_text()
    except FileNotFoundError:
        raise ArchitectureError(f"--network {path}: no such file") from None
    except (IsADirectoryError, PermissionError, UnicodeDecodeError) as exc:
        raise ArchitectureError(f"--network {path}: cannot be read ({type(exc).__name__})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ArchitectureError(f"--network {path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    return layers_from_json(data, f"--network {path}")
