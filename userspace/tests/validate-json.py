#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# validate-json.py SCHEMA FILE...: every line of each FILE (JSON Lines: one
# report a line) is valid against the JSON Schema SCHEMA (python3-jsonschema).
# Prints "valid N" (all files' lines) or the first error; exit status 0 only
# if all are valid.  Several files in one run: the schema is read once (the
# guests, where python's start is slow, check every mode's file at once).
import json
import sys

import jsonschema

if len(sys.argv) < 3:
    print("usage: validate-json.py SCHEMA FILE...")
    sys.exit(2)
with open(sys.argv[1]) as f:
    schema = json.load(f)
validator_class = jsonschema.validators.validator_for(schema)
validator_class.check_schema(schema)
validator = validator_class(schema)
n = 0
for path in sys.argv[2:]:
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            errors = sorted(validator.iter_errors(json.loads(line)), key=lambda e: list(e.path))
            if errors:
                e = errors[0]
                print("%sline %d: %s at %s" % (path + ": " if len(sys.argv) > 3 else "", lineno,
                                               e.message, "/".join(map(str, e.path))))
                sys.exit(1)
            n += 1
print("valid %d" % n)
