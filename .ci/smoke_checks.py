"""HTTP checks against a running server (used by .ci/smoke)."""

import json
import sys
import time
import urllib.request

base = sys.argv[1]


def get(path, token=None):
    request = urllib.request.Request(base + path, headers={"Authorization": f"Token {token}"} if token else {})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, json.loads(response.read())


def post(path, body, token=None):
    headers = {"Content-Type": "application/json", **({"Authorization": f"Token {token}"} if token else {})}
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, json.loads(response.read())


status, health = get("/healthz")
assert status == 200 and health["status"] == "ok", health
assert set(health["checks"]) == {"database", "channel_layer", "broker"}, health
print("healthz ok:", health["checks"])

status, leagues = get("/api/leagues/")
assert status == 200 and leagues["count"] >= 1, leagues
print("api ok: leagues", [league["name"] for league in leagues["results"]])

# A table of four CPUs plays itself to the end: the worker makes every move, Daphne serves it.
_, login = post("/api/auth/token", {"username": "alice", "password": "hearts-demo"})
cpu = {"kind": "cpu", "bot": "rule"}
status, game = post("/api/games/", {"rules": {"end_score": 26}, "seats": [cpu] * 4}, token=login["token"])
assert status == 201 and game["status"] == "active", game
deadline = time.monotonic() + 120
while time.monotonic() < deadline:
    _, game = get(f"/api/games/{game['id']}/")
    if game["status"] == "finished":
        break
    time.sleep(0.5)
assert game["status"] == "finished", f"the CPU table stalled at seq {game['seq']}"
_, audit = get(f"/api/games/{game['id']}/audit/")
assert audit["ok"], audit
print(f"cpu table ok: game {game['id']} finished at seq {game['seq']}, totals {game['final_totals']}, audit clean")
