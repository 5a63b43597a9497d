#!/usr/bin/python3
"""Draw a static memory plan as the classic packing picture.

    /usr/bin/python3 scripts/plot_memory.py plan.json -o plan.png [--persistent] [--title T]

plan.json is what `s2c compile ... --memory-report plan.json` writes
(compiler/memory/memory_report.h). The picture has the execution step on x and the DRAM
address in MiB on y; every arena tensor is one rectangle spanning steps [first, last + 1) and
addresses [address, address + size), coloured by role (feature maps, activation gradients,
weight gradients, scratch, ...). Horizontal lines mark the arena top (the planned arena size)
and the lower bound (the largest live bytes at any step, which no plan can beat): the gap
between them is what the planner left on the table.

Persistent tensors (weights, optimizer and batch-norm state, inputs, labels) keep one place
for the whole step and usually dwarf the arena, so they are summarised in a note by default;
--persistent draws them as one shaded band below the arena instead.

Under `s2c compile --memory-budget` (docs/compiler.md, "Memory budget") an activation A swapped
to host memory has three buffers: A in DRAM up to its swap-out, its slot A.swap_out in host
memory ("space": "host"), and A.swap_in in DRAM from its swap-in on. Both DRAM parts are drawn
hatched, joined by a dotted line over the steps A spends in host memory; host slots are not
DRAM, so they get no rectangle of their own, and the legend gives their count and bytes. An
activation recomputed in the backward is a buffer named after its producer with `.recompute`
(the clone's output), drawn cross-hatched.

Needs Debian's python3-matplotlib. Exits 1 with a message naming the file when it is missing
or not a memory report.
"""

import json
import sys

from script_args import Parser

MIB = 1024.0 * 1024.0

# Role name (isa::role_name) -> (legend label, colour). Roles not listed get grey.
ROLE_STYLE = {
    "activation": ("feature map (activation)", "#4c72b0"),
    "gradient": ("activation gradient", "#dd8452"),
    "weight_gradient": ("weight gradient", "#55a868"),
    "scratch": ("scratch", "#8172b3"),
    "optimizer_state": ("optimizer state", "#937860"),
    "state": ("batch-norm state", "#da8bc3"),
    "weight": ("weight", "#8c8c8c"),
    "input": ("input", "#ccb974"),
    "label": ("label", "#64b5cd"),
}

REQUIRED_KEYS = ("planner", "alignment", "persistent_bytes", "arena_base", "arena_size",
                 "lower_bound", "ratio", "tensors")
TENSOR_KEYS = ("name", "role", "size", "first", "last", "persistent", "address")


class ReportError(Exception):
    pass


def load_report(path):
    try:
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
    except OSError as e:
        raise ReportError(f"cannot read {path}: {e.strerror}") from e
    except json.JSONDecodeError as e:
        raise ReportError(f"{path}:{e.lineno}:{e.colno}: not valid JSON: {e.msg}") from e
    except UnicodeDecodeError as e:
        raise ReportError(f"{path}: not a memory report (byte {e.start} is not UTF-8 text; "
                          "give the JSON of s2c --memory-report)") from e
    if not isinstance(report, dict):
        raise ReportError(f"{path}: not a memory report (the top level is not an object)")
    missing = [k for k in REQUIRED_KEYS if k not in report]
    if missing:
        raise ReportError(f"{path}: not a memory report (missing {', '.join(missing)})")
    if not isinstance(report["tensors"], list):
        raise ReportError(f"{path}: \"tensors\" is not a list")
    for i, t in enumerate(report["tensors"]):
        absent = [k for k in TENSOR_KEYS if not isinstance(t, dict) or k not in t]
        if absent:
            raise ReportError(f"{path}: tensors[{i}] lacks {', '.join(absent)}")
    return report


def plot(report, output, show_persistent, title):
    import matplotlib
    matplotlib.use("Agg")  # files only; never needs a display
    import matplotlib.pyplot as plt
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import Patch, Rectangle

    base = report["arena_base"]
    top = base + report["arena_size"]
    bound = base + report["lower_bound"]
    dram = [t for t in report["tensors"] if t.get("space", "dram") == "dram"]
    host = [t for t in report["tensors"] if t.get("space", "dram") == "host"]
    arena = [t for t in dram if not t["persistent"] and t["size"] > 0]
    persistent = [t for t in dram if t["persistent"]]
    steps = max([t["last"] + 1 for t in report["tensors"]] + [report.get("steps", 0), 1])
    # Swapped activations: NAME in DRAM, NAME.swap_out in host memory, NAME.swap_in in DRAM.
    swapped_names = {t["name"][:-len(".swap_out")] for t in host
                     if t["name"].endswith(".swap_out")}
    by_name = {t["name"]: t for t in arena}

    fig, ax = plt.subplots(figsize=(14, 6.5), dpi=120)
    by_role = {}
    swapped_parts = []
    recomputed = []
    for t in arena:
        rect = Rectangle((t["first"], t["address"] / MIB), t["last"] + 1 - t["first"],
                         t["size"] / MIB)
        name = t["name"][:-len(".swap_in")] if t["name"].endswith(".swap_in") else t["name"]
        if ".recompute" in t["name"]:
            recomputed.append(rect)
        elif name in swapped_names:
            swapped_parts.append(rect)
        else:
            by_role.setdefault(t["role"], []).append(rect)
    handles = []
    for role in list(ROLE_STYLE) + sorted(r for r in by_role if r not in ROLE_STYLE):
        if role not in by_role:
            continue
        label, colour = ROLE_STYLE.get(role, (role, "#b0b0b0"))
        ax.add_collection(PatchCollection(by_role[role], facecolor=colour, edgecolor="black",
                                          linewidth=0.2, alpha=0.85))
        handles.append(Patch(facecolor=colour, edgecolor="black", linewidth=0.2,
                             label=f"{label} ({len(by_role[role])})"))

    if swapped_parts:
        ax.add_collection(PatchCollection(swapped_parts, facecolor="#4c72b0", edgecolor="black",
                                          linewidth=0.2, alpha=0.45, hatch="////"))
        for name in sorted(swapped_names):
            out, back = by_name.get(name), by_name.get(name + ".swap_in")
            if out and back:  # the steps it spends in host memory
                ax.plot([out["last"] + 1, back["first"]],
                        [(out["address"] + out["size"] / 2) / MIB,
                         (back["address"] + back["size"] / 2) / MIB],
                        color="#4c72b0", linewidth=0.6, linestyle=":")
        host_bytes = sum(t["size"] for t in host)
        handles.append(Patch(facecolor="#4c72b0", edgecolor="black", linewidth=0.2, alpha=0.45,
                             hatch="////",
                             label=f"swapped to host memory ({len(swapped_names)}, "
                                   f"{host_bytes / MIB:.2f} MiB): before and after"))
    if recomputed:
        ax.add_collection(PatchCollection(recomputed, facecolor="#4c72b0", edgecolor="black",
                                          linewidth=0.2, alpha=0.45, hatch="xxx"))
        handles.append(Patch(facecolor="#4c72b0", edgecolor="black", linewidth=0.2, alpha=0.45,
                             hatch="xxx",
                             label=f"recomputed in the backward ({len(recomputed)})"))
    ax.axhline(top / MIB, color="#c44e52", linewidth=1.2)
    ax.axhline(bound / MIB, color="black", linewidth=1.0, linestyle="--")
    handles.append(plt.Line2D([], [], color="#c44e52",
                              label=f"arena top ({report['arena_size'] / MIB:.2f} MiB)"))
    handles.append(plt.Line2D([], [], color="black", linestyle="--",
                              label=f"lower bound ({report['lower_bound'] / MIB:.2f} MiB)"))

    persistent_bytes = report["persistent_bytes"]
    note = f"persistent: {len(persistent)} tensors, {persistent_bytes / MIB:.2f} MiB"
    if show_persistent:
        ax.axhspan(0, persistent_bytes / MIB, color="#d0d0d0", alpha=0.6)
        handles.append(Patch(facecolor="#d0d0d0", label=note))
        low = 0.0
    else:
        handles.append(Patch(facecolor="none", edgecolor="none",
                             label=f"{note}\nat [0, {persistent_bytes / MIB:.2f}) MiB, not drawn"))
        low = base / MIB
    span = max(top - (0 if show_persistent else base), 1) / MIB
    ax.set_xlim(0, steps)
    ax.set_ylim(low, low + span * 1.08)
    ax.set_xlabel("execution step")
    ax.set_ylabel("DRAM address (MiB)")
    ax.set_title(title or (f"memory plan: {report['planner']}, "
                           f"arena {report['arena_size'] / MIB:.2f} MiB, "
                           f"lower bound {report['lower_bound'] / MIB:.2f} MiB, "
                           f"ratio {report['ratio']:.4f}, alignment {report['alignment']} B"))
    # Outside the axes: inside, it would hide the packing it explains.
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    fig.tight_layout()
    fig.savefig(output)
    plt.close(fig)


def main(argv):
    parser = Parser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report", help="memory report JSON from s2c --memory-report")
    parser.add_argument("-o", "--output", required=True,
                        help="picture to write (.png, .svg, .pdf)")
    parser.add_argument("--persistent", action="store_true",
                        help="draw the persistent region as a shaded band (default: a note)")
    parser.add_argument("--title", help="replace the default title")
    args = parser.parse_args(argv)
    try:
        report = load_report(args.report)
    except ReportError as e:
        print(f"plot_memory: {e}", file=sys.stderr)
        return 1
    try:
        plot(report, args.output, args.persistent, args.title)
    except ImportError as e:
        print(f"plot_memory: {e} (install Debian's python3-matplotlib)", file=sys.stderr)
        return 1
    except (OSError, ValueError, TypeError) as e:
        print(f"plot_memory: cannot draw {args.report} into {args.output}: {e}", file=sys.stderr)
        return 1
    swapped = sum(1 for t in report["tensors"]
                  if t.get("space", "dram") == "host" and t["name"].endswith(".swap_out"))
    recomputed = sum(1 for t in report["tensors"] if ".recompute" in t["name"])
    print(f"plot_memory: wrote {args.output} ({len(report['tensors'])} tensors"
          + (f", {swapped} swapped to host memory" if swapped else "")
          + (f", {recomputed} recomputed buffer(s)" if recomputed else "") + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
