#!/usr/bin/env python3
"""One line on what a modal model file holds, and why it holds fewer modes than were asked for.

    python3 scripts/model_summary.py out/bowl.modal.json [WHAT]   # WHAT: "a steel bowl"

`mesh2dsp modes --modes N` keeps the lowest N modes inside the window [--fmin, --fmax]
(20 Hz - 20 kHz by default): a small or stiff object has fewer than N there, and the others,
above the window, are not in the model. Standard library only (any python3)."""
import json, sys


def summary(model, what=None):
    analysis, count = model["analysis"], len(model["modes"])
    line = "%d modes" % count
    if what:
        line += " of " + what
    requested = analysis.get("requested_modes", 0)
    if count < requested:
        line += " (%d asked for: the others lie above --fmax %g kHz, outside the window kept)" % (
            requested, analysis["fmax_hz"] / 1000)
    return line


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    try:
        with open(sys.argv[1]) as f:
            model = json.load(f)
        print(summary(model, sys.argv[2] if len(sys.argv) == 3 else None))
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit("model_summary.py: %s: not a readable modal model (%s)" % (sys.argv[1], e))
