#!/usr/bin/env python3
"""Reads YAML with PyYAML (a YAML 1.1 parser, as kubectl's and SkyPilot's are: U+2028,
U+2029 and U+0085 break lines, a plain off/012/0x10 is a boolean or a number) and prints,
as one line of JSON per input, {"documents": <how many>, "document": <the first, as JSON>}
or {"error": "<why>"} when it does not parse. The inputs are the files named on the
command line (one line each, in order), or stdin when none is named. A value JSON has no
type for (a date, a set) prints as {"!python": "<its type>"}, so a test that expects a
string sees the difference. Used by tests/testing/yaml11.h."""
import json
import sys

import yaml


def shape(data):
    try:
        documents = list(yaml.safe_load_all(data.decode("utf-8", errors="strict")))
    except (yaml.YAMLError, UnicodeDecodeError) as e:
        return {"error": str(e)}
    return {"documents": len(documents), "document": documents[0] if documents else None}


def main():
    inputs = []
    for path in sys.argv[1:]:
        with open(path, "rb") as f:
            inputs.append(f.read())
    if not sys.argv[1:]:
        inputs.append(sys.stdin.buffer.read())
    for data in inputs:
        print(json.dumps(shape(data), default=lambda o: {"!python": type(o).__name__}))


if __name__ == "__main__":
    main()
