#!/usr/bin/python3
"""The project's one plotting helper: draws a PNG from a JSON spec (Debian's python3-matplotlib).

    /usr/bin/python3 scripts/plot.py SPEC.json OUT.png   (Debian's Python, which has matplotlib)

SPEC is one figure of panels, each of one kind:
  {"title": "...", "columns": 2, "panels": [PANEL, ...]}
  lines:   {"kind": "lines", "title", "xlabel", "ylabel", "logx", "logy",
            "series": [{"label", "x": [...], "y": [...]}]}
  scatter: {"kind": "scatter", "title", "xlabel", "ylabel", "logx", "logy", "diagonal": true,
            "series": [{"label", "x": [...], "y": [...]}]}        (diagonal: the y = x line)
  bars:    {"kind": "bars", "title", "ylabel", "categories": [...],
            "series": [{"label", "y": [...]}], "hline": 1.0}      (grouped bars, optional reference line)
  gantt:   {"kind": "gantt", "title", "xlabel", "rows": ["cores 0-1", ...],
            "bars": [{"row": "cores 0-1", "start", "end", "label", "color"}], "legend": {"label": "color"}}
            (a bar's color is optional: bars without one cycle through the palette)
A spec without "panels" is a single panel.
"""
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def draw_lines(ax, p, scatter=False):
    for s in p.get("series", []):
        if scatter:
            ax.scatter(s["x"], s["y"], s=8, alpha=0.6, label=s.get("label"))
        else:
            ax.plot(s["x"], s["y"], label=s.get("label"), linewidth=1.5)
    if scatter and p.get("diagonal"):
        values = [v for s in p.get("series", []) for v in s["x"] + s["y"] if v > 0]
        if values:
            lo, hi = min(values), max(values)
            ax.plot([lo, hi], [lo, hi], color="gray", linewidth=1, linestyle="--")


def draw_bars(ax, p):
    cats = p.get("categories", [])
    series = p.get("series", [])
    width = 0.8 / max(1, len(series))
    for i, s in enumerate(series):
        xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(cats))]
        ax.bar(xs, s["y"], width=width, label=s.get("label"))
    ax.set_xticks(range(len(cats)))
    ax.set_xticklabels(cats, rotation=45, ha="right", fontsize=7)
    if "hline" in p:
        ax.axhline(p["hline"], color="gray", linewidth=1, linestyle="--")


def draw_gantt(ax, p):
    rows = p.get("rows", [])
    index = {r: i for i, r in enumerate(rows)}
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, b in enumerate(p.get("bars", [])):
        y = index[b["row"]]
        ax.barh(y, b["end"] - b["start"], left=b["start"], height=0.6, color=b.get("color", colors[k % len(colors)]),
                edgecolor="black", linewidth=0.3)
        if b.get("label"):
            ax.text(b["start"] + (b["end"] - b["start"]) / 2, y, b["label"], ha="center", va="center", fontsize=6)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(rows)
    ax.invert_yaxis()
    legend = p.get("legend", {})
    if legend:
        from matplotlib.patches import Patch
        ax.legend(handles=[Patch(color=c, label=l) for l, c in legend.items()], fontsize=7, loc="upper right")


def draw(ax, p):
    kind = p.get("kind", "lines")
    if kind == "lines":
        draw_lines(ax, p)
    elif kind == "scatter":
        draw_lines(ax, p, scatter=True)
    elif kind == "bars":
        draw_bars(ax, p)
    elif kind == "gantt":
        draw_gantt(ax, p)
    else:
        raise ValueError("unknown panel kind '%s' (lines, scatter, bars, gantt)" % kind)
    ax.set_title(p.get("title", ""), fontsize=9)
    ax.set_xlabel(p.get("xlabel", ""))
    ax.set_ylabel(p.get("ylabel", ""))
    if p.get("logx"):
        ax.set_xscale("log")
    if p.get("logy"):
        ax.set_yscale("log")
    if any(s.get("label") for s in p.get("series", [])):
        ax.legend(fontsize=7)
    ax.grid(True, linewidth=0.3)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot.py SPEC.json OUT.png")
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    panels = spec.get("panels", [spec])
    cols = max(1, min(spec.get("columns", 2), len(panels)))
    rows = math.ceil(len(panels) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5.5 * cols, 3.8 * rows), squeeze=False)
    for i, p in enumerate(panels):
        draw(axes[i // cols][i % cols], p)
    for j in range(len(panels), rows * cols):
        axes[j // cols][j % cols].axis("off")
    if "panels" in spec and spec.get("title"):
        fig.suptitle(spec["title"])
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)


if __name__ == "__main__":
    main()
