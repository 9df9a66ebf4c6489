#!/usr/bin/env python3
"""Accuracy of a modal model A against a converged reference B of the same object: the relative
frequency error of each mode, matched by sorted order (both lists ascending; degenerate pairs,
which may come out in either order, then still match within the pair), over the first N modes
(default: as many as both have). Prints one line per mode and a summary line

    worst X %, median Y %, N modes

or, with --json, the summary as JSON. Exits 0 whatever the error (a benchmark reports; it does
not judge); 2 on unreadable input. Standard library only.

    python3 scripts/compare_modes.py A.modal.json B.modal.json [--modes N] [--json]
"""
import argparse, json, statistics, sys


def frequencies(path):
    with open(path) as f:
        data = json.load(f)
    modes = data["modes"] if isinstance(data, dict) else data
    return sorted(float(m["frequency_hz"]) for m in modes)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", help="modal JSON of the model to judge (A)")
    ap.add_argument("reference", help="modal JSON of the converged reference (B)")
    ap.add_argument("--modes", type=int, default=0, help="compare the first N modes (default: all both have)")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON only")
    a = ap.parse_args(argv)
    try:
        fa, fb = frequencies(a.model), frequencies(a.reference)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("compare_modes.py: %s" % e, file=sys.stderr)
        return 2
    n = min(len(fa), len(fb))
    if a.modes > 0:
        n = min(n, a.modes)
    # a 0 Hz reference mode (rigid body) counts as exact only against 0 Hz
    errs = [100.0 * (x - y) / y if y else (0.0 if x == 0 else float("inf"))
            for x, y in zip(fa[:n], fb[:n])]
    summary = {"modes": n, "modes_model": len(fa), "modes_reference": len(fb),
               "worst_percent": max((abs(e) for e in errs), default=None),
               "median_percent": statistics.median(abs(e) for e in errs) if errs else None,
               "mean_signed_percent": statistics.fmean(errs) if errs else None}
    if a.json:
        print(json.dumps(summary))
        return 0
    print("| mode | model Hz | reference Hz | error % |")
    print("|---|---|---|---|")
    for k, (x, y, e) in enumerate(zip(fa, fb, errs), 1):
        print("| %d | %.2f | %.2f | %+.3f |" % (k, x, y, e))
    if n:
        print("mean signed error %+.3f %%" % summary["mean_signed_percent"])
        print("worst %.3f %%, median %.3f %%, %d modes"
              % (summary["worst_percent"], summary["median_percent"], n))
    else:
        print("no modes to compare (model has %d, reference %d)" % (len(fa), len(fb)))
        print("worst - %, median - %, 0 modes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
