"""Networks as text: the command line's ``--layers`` specification and the ``--network`` JSON file.

``--layers``: layers separated by ``;``, each a kind and its options, with an optional repeat ``2x``::

    attn a=2 heads=2 skip; mlp w=8 r=2 skip          attention (+ skip), then an MLP (+ skip)
    2x block a=8 heads=2 w=48 r=2                     two standard blocks (skips on; 'noskip' drops them)

attn/attention: ``a=`` rank (required), ``out=`` output width, ``heads=``, ``b=`` value rank, ``causal``,
``skip``. mlp: ``w=`` width (required), ``r=`` degree (default 2), ``out=``, ``skip``. block: the attention
and MLP options together, ``noskip``. Widths chain from ``--dims D0`` (the input width).

``--network FILE``: a JSON list of layers (or ``{"layers": [...]}``), each an object with ``kind``
("attention" or "mlp"), ``d_in``, ``d_out``, and for attention ``rank``, ``heads``, ``value_rank``,
``causal``, ``residual``, for an MLP ``width``, ``degree``, ``residual``; omitted keys take the defaults.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from m2bridge.errors import ArchitectureError
from m2bridge.layers.attention import Attention
from m2bridge.layers.base import LayerKind
from m2bridge.layers.mlp import MLP

_ATTN_KEYS = {"a": "rank", "rank": "rank", "out": "d_out", "d_out": "d_out", "heads": "heads", "h": "heads",
              "b": "value_rank", "value_rank": "value_rank"}
_MLP_KEYS = {"w": "width", "width": "width", "r": "degree", "degree": "degree", "out": "d_out", "d_out": "d_out"}
_KINDS = {"attn": "attention", "attention": "attention", "mlp": "mlp", "block": "block"}
HELP = ("layers separated by ';': 'attn a=A [heads=H] [b=B] [out=D] [causal] [skip]', "
        "'mlp w=W [r=R] [out=D] [skip]', 'block a=A w=W [r=R] [heads=H] [noskip]' (attention + MLP, skips on); "
        "'2x ...' repeats; widths chain from --dims D0")


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
        raise ArchitectureError(f"--layers: '{part}' must start with attn, mlp or block (got {kind!r}); " + HELP)
    kind = _KINDS[words[0]]
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
              "mlp": {"kind", "d_in", "d_out", "width", "degree", "residual"}}


def layers_from_json(data: Any, source: str = "the network") -> list[LayerKind]:
    """Layers from the JSON form (a list of objects, or an object with ``layers``)."""
    if isinstance(data, dict) and "layers" in data:
        data = data["layers"]
    if not isinstance(data, list) or not data:
        raise ArchitectureError(f"{source}: expected a JSON list of layers (objects with 'kind': 'attention' or "
                                "'mlp'), or an object with a 'layers' list")
    out: list[LayerKind] = []
    for i, item in enumerate(data, start=1):
        if not isinstance(item, dict) or item.get("kind") not in _FILE_KEYS:
            raise ArchitectureError(f"{source}: layer {i} must be an object with 'kind' \"attention\" or \"mlp\", "
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
        try:
            out.append(Attention(**kw) if kind == "attention" else MLP(**kw))
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
