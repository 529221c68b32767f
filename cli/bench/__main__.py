"""The recall bench's children: python -m memevo.cli.bench make N | recall RUNS."""

import json
import sys

from .pool import synthetic_store
from .recall import recall_child

if len(sys.argv) == 3 and sys.argv[1] == "make":
    synthetic_store(int(sys.argv[2])).close()
elif len(sys.argv) == 3 and sys.argv[1] == "recall":
    print(json.dumps(recall_child(int(sys.argv[2]))))
else:
    raise SystemExit("usage: python -m memevo.cli.bench make N | recall RUNS")
