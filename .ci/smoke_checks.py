"""HTTP checks against a running server (used by .ci/smoke)."""

import json
import sys
import urllib.request

base = sys.argv[1]


def get(path):
    with urllib.request.urlopen(base + path, timeout=10) as response:
        return response.status, json.loads(response.read())


status, health = get("/healthz")
assert status == 200 and health["status"] == "ok", health
assert set(health["checks"]) == {"database", "channel_layer", "broker"}, health
print("healthz ok:", health["checks"])

status, leagues = get("/api/leagues/")
assert status == 200 and leagues["count"] >= 1, leagues
print("api ok: leagues", [league["name"] for league in leagues["results"]])
