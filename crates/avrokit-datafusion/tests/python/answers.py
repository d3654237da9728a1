"""Independent answers to the SQL tests' queries (tests/sql.rs), computed by fastavro.

Usage: answers.py T_FILES... -- K_FILES...
Prints one JSON object: for each query name, its rows as lists of strings, formatted as
DataFusion prints them (integers plainly, booleans lower case, NULL as null).
"""
import json
import sys

import fastavro


def records(paths):
    for p in paths:
        with open(p, "rb") as f:
            yield from fastavro.reader(f)


def main():
    args = sys.argv[1:]
    split = args.index("--")
    t_files, k_files = args[:split], args[split + 1:]
    t = list(records(t_files))
    k = list(records(k_files))

    out = {}
    out["count"] = [[str(len(t))]]
    out["sum_i"] = [[str(sum(r["i"] for r in t))]]
    groups = {}
    for r in t:
        if r["b"]:
            g = groups.setdefault(r["e"], [0, 0])
            g[0] += 1
            g[1] += r["i"]
    out["group_by"] = [[e, str(c), str(s)] for e, (c, s) in sorted(groups.items())]
    nested = [r["n"]["id"] for r in t if r["n"]["label"].startswith("a")]
    out["nested"] = [[str(sum(nested)), str(len(nested))]]
    out["nulls_and_lengths"] = [[
        str(sum(1 for r in t if r["u"] is not None)),
        str(max(len(r["s"]) for r in t)),
    ]]
    out["array"] = [[str(sum(len(r["a"]) for r in t))]]
    tags = {}
    for r in k:
        tags.setdefault(r["key"], []).append(r["tag"])
    joined = {}
    for r in t:
        for tag in tags.get(r["i"], []):
            joined[tag] = joined.get(tag, 0) + 1
    out["join"] = [[tag, str(n)] for tag, n in sorted(joined.items())]
    first = sorted(t, key=lambda r: (r["l"], r["i"]))[:3]
    out["order_limit"] = [[str(r["l"]), r["s"]] for r in first]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
