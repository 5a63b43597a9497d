#!/usr/bin/python3
"""Draw a sweep's results: the trade-offs and each axis's effect on the step time.

    /usr/bin/python3 scripts/plot_sweep.py DIR [-o OUTDIR]

DIR is what `s2sim sweep SPEC -o DIR` wrote (docs/sweep.md): results.csv, pareto.csv and
sweep.json (the varied keys and the objectives). Writes into OUTDIR (default DIR/plots), per
workload W:

  W-ms-vs-OBJ.png  the step time against each other objective of the spec (an area or energy
                   figure, array MACs, SRAM bytes, ...), one dot per successful point, the
                   Pareto front (pareto.csv) highlighted and joined;
  W-axes.png       one panel per axis (by its first key when it sets several): the step time
                   of every point against the axis's value, the best point of each value
                   joined, so the axis's own effect shows apart from the others'.

Needs Debian's python3-matplotlib. Exits 1 with a message naming the file when DIR holds no
sweep results.
"""

import csv
import json
import os
import sys

from script_args import Parser


def fail(message):
    print("plot_sweep.py: " + message, file=sys.stderr)
    sys.exit(1)


def read_rows(path):
    try:
        with open(path, newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))
    except OSError as e:
        fail("%s: cannot read: %s" % (path, e.strerror))
    except (UnicodeDecodeError, csv.Error) as e:
        fail("%s: not a sweep's results CSV: %s" % (path, e))


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def safe(name):
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)


def main():
    parser = Parser(description=__doc__.split("\n")[0])
    parser.add_argument("dir", help="the sweep's directory (s2sim sweep -o DIR)")
    parser.add_argument("-o", "--out", help="directory for the PNGs (default DIR/plots)")
    args = parser.parse_args()

    state_path = os.path.join(args.dir, "sweep.json")
    try:
        with open(state_path, encoding="utf-8") as f:
            state = json.load(f)
    except OSError as e:
        fail("%s: cannot read: %s (is %s a sweep's directory?)" % (state_path, e.strerror, args.dir))
    except ValueError as e:
        fail("%s: not a sweep state file: %s" % (state_path, e))
    axes = [keys[0] for keys in state.get("axes", [])]
    axis_label = {keys[0]: " = ".join(keys) for keys in state.get("axes", [])}
    objectives = [o for o in state.get("objectives", []) if o != "ms"]
    rows = read_rows(os.path.join(args.dir, "results.csv"))
    pareto_path = os.path.join(args.dir, "pareto.csv")
    front = read_rows(pareto_path) if os.path.exists(pareto_path) else []
    ok = [r for r in rows if r.get("status") == "ok"]
    if not ok:
        fail("%s: no successful rows to plot" % os.path.join(args.dir, "results.csv"))

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = args.out or os.path.join(args.dir, "plots")
    os.makedirs(out, exist_ok=True)
    written = []
    for workload in sorted({r["workload"] for r in ok}):
        mine = [r for r in ok if r["workload"] == workload]
        best = [r for r in front if r["workload"] == workload]
        for objective in objectives:
            fig, ax = plt.subplots(figsize=(6.4, 4.8))
            xs = [number(r.get(objective)) for r in mine]
            ax.scatter(xs, [number(r["ms"]) for r in mine], s=18, color="#8c8c8c",
                       label="points (%d)" % len(mine))
            if best:
                pts = sorted((number(r.get(objective)), number(r["ms"])) for r in best)
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", color="#c44e52",
                        label="Pareto front (%d)" % len(best))
            ax.set_xlabel(objective)
            ax.set_ylabel("step time (ms)")
            ax.set_title("%s: step time vs %s" % (workload, objective))
            ax.grid(True, alpha=0.3)
            ax.legend()
            path = os.path.join(out, "%s-ms-vs-%s.png" % (safe(workload), safe(objective)))
            fig.tight_layout()
            fig.savefig(path, dpi=100)
            plt.close(fig)
            written.append(path)
        numeric = [a for a in axes if all(number(r.get(a)) is not None for r in mine)]
        labels = [a for a in axes if a not in numeric]
        keys = numeric + labels
        if keys:
            cols = min(3, len(keys))
            grid_rows = (len(keys) + cols - 1) // cols
            fig, panels = plt.subplots(grid_rows, cols, figsize=(4.6 * cols, 3.8 * grid_rows),
                                       squeeze=False)
            cells = [ax for row in panels for ax in row]
            for ax in cells[len(keys):]:
                ax.set_visible(False)
            for ax, key in zip(cells, keys):
                unit, scale = "", 1.0
                if key in numeric:
                    values = sorted({number(r[key]) for r in mine})
                    if key.endswith(("size", "capacity")) and min(values) >= 1024:
                        unit, scale = (" (MiB)", 2.0 ** 20) if min(values) >= 2 ** 20 else (" (KiB)", 1024.0)
                    position = {v: v / scale for v in values}
                    ax.set_xscale("log" if min(values) > 0 and max(values) / min(values) >= 8 else "linear")
                else:
                    values = sorted({r[key] for r in mine})
                    position = {v: i for i, v in enumerate(values)}
                    ax.set_xticks(range(len(values)))
                    ax.set_xticklabels(values, rotation=20)
                value_of = (lambda r: number(r[key])) if key in numeric else (lambda r: r[key])
                ax.scatter([position[value_of(r)] for r in mine], [number(r["ms"]) for r in mine],
                           s=14, color="#8c8c8c")
                lows = [min(number(r["ms"]) for r in mine if value_of(r) == v) for v in values]
                ax.plot([position[v] for v in values], lows, "o-", color="#4c72b0", label="best")
                ax.set_xlabel(axis_label[key] + unit)
                ax.set_ylabel("step time (ms)")
                ax.grid(True, alpha=0.3)
            panels[0][0].legend()
            fig.suptitle("%s: each axis's effect on the step time" % workload)
            path = os.path.join(out, "%s-axes.png" % safe(workload))
            fig.tight_layout()
            fig.savefig(path, dpi=100)
            plt.close(fig)
            written.append(path)
    for path in written:
        print("wrote " + path)


if __name__ == "__main__":
    main()
