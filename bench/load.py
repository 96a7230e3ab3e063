"""Live-play load benchmark: N tables of four WebSocket clients playing through Daphne,
PostgreSQL, Redis and a Celery worker, all on this machine.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/hearts_bench REDIS_URL=redis://127.0.0.1:6379/3 \\
        python bench/load.py --tables 100 --hands 2 --daphnes 2 --bare

``--bare`` then runs the same clients against ``bench/bare.py`` (a Channels app with no
database sending the same frame shapes) and prints both figures and their ratio: what the
project spends per play beyond the bare app's figure is its own work, not the framework's.
``--bare-durable`` (also) runs the bare app committing each play in one statement before its
``ack`` (as the project must): the framework's cost with the durability the project keeps.

A table's four connections go to one Daphne (``--route game``), as a load balancer that hashes
the game's path sends them (README); ``--route seat`` spreads them over the processes instead.
Every client answers the moment it is to act (three cards to pass, then its lowest legal
card), with ``expected_seq`` on plays and a ``command_id`` on passes, so that nothing is
ever played twice. Reports plays per second and, for every card played, the time from the
player sending it to the *last* of the other three seats receiving it (p50 / p99).

The CPU a play costs is counted over the whole run, the tables' connections opening and closing
included. ``--connections`` measures those alone: every client connects at once, each waits
for its first ``update``, then all close (mid-game), and it prints the CPU of each process group
per connection opened and per connection closed (``--bare``: the bare app's beside it).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hearts_league.settings")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


PROJECT_APP, BARE_APP = "hearts_league.asgi:application", "bench.bare:application"


def start_processes(
    daphnes: int, env: dict, *, bare: bool = False, profiles: list[str] | None = None
) -> tuple[list[subprocess.Popen], list[int]]:
    """Start the Daphne processes (the project's, or the bare app's) and, for the project, a
    Celery worker (last in the list); their output goes to /tmp/hearts-load-*.log. With
    ``profiles`` (one file per Daphne), each runs under cProfile from the moment it answers
    (``bench/profiled_daphne.py``)."""
    processes, ports = [], []
    for index in range(daphnes):
        port = free_port()
        log = open(f"/tmp/hearts-load-daphne-{index}.log", "w")  # noqa: SIM115 (kept open for the child)
        server = ["bench.profiled_daphne", profiles[index]] if profiles else ["daphne"]
        processes.append(
            subprocess.Popen(
                [sys.executable, "-m", *server, "-b", "127.0.0.1", "-p", str(port), BARE_APP if bare else PROJECT_APP],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        )
        ports.append(port)
    if not bare:
        from hearts_league.celery import worker_command

        log = open("/tmp/hearts-load-worker.log", "w")  # noqa: SIM115
        processes.append(
            subprocess.Popen(
                worker_command(env.get("CELERY_QUEUE", "hearts")),
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        )
    for port in ports:
        deadline = time.monotonic() + 60
        while not _answers(port, bare):
            if time.monotonic() > deadline:
                raise SystemExit(f"daphne on port {port} did not come up")
            time.sleep(0.3)
    if profiles:
        for process in processes[:daphnes]:
            process.send_signal(signal.SIGUSR1)
    return processes, ports


def profile_paths(args, label: str) -> list[str] | None:
    """Where ``--profile`` has each Daphne write its statistics (None without it)."""
    if not args.profile:
        return None
    return [f"/tmp/hearts-load-{label}-daphne-{index}.prof" for index in range(args.daphnes)]


def print_profile(paths: list[str] | None, label: str, plays: int) -> None:
    """The Daphnes' heaviest functions, by their own CPU time and, for the project's code, with
    what they call, each per card played (the profiler's own cost included: compare shares)."""
    if not paths or not plays:
        return
    import pstats

    stats = pstats.Stats(*paths, stream=sys.stdout)
    total = sum(row[2] for row in stats.stats.values())  # type: ignore[attr-defined]
    print(f"--- {label}: Daphne profile, {total / plays * 1000:.2f} ms of profiled CPU per play ({', '.join(paths)})")
    stats.sort_stats("tottime").print_stats(25)
    stats.sort_stats("cumtime").print_stats(r"/(tournaments|engine|hearts_league|bench)/", 25)


def _answers(port: int, bare: bool) -> bool:
    try:
        if bare:  # the bare app serves WebSockets only: an open port is enough
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
            return True
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def stop(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        process.send_signal(signal.SIGTERM)
    for process in processes:
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def cpu_seconds(pids, *, reaped: bool = False) -> float:
    """User + system CPU time of these processes so far (Linux /proc); ``reaped``: with that of
    their children that have exited (PostgreSQL's postmaster reaps each backend that closes, so
    a backend gone between two readings still counts)."""
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks = int(fields[11]) + int(fields[12]) + (int(fields[13]) + int(fields[14]) if reaped else 0)
        total += ticks / os.sysconf("SC_CLK_TCK")
    return total


def pids_named(name: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip().startswith(name):
                    pids.append(int(entry.name))
            except OSError:
                pass
    return pids


QUIET_PING_SECONDS = 5.0
RATE_LIMITED_PAUSE = 0.2
"""Seconds a client refused with ``rate_limited`` waits before answering the newest state again.
The server allows a connection 10 frames a second (bursts of 30): plenty for a person, but a
robot client of the last tables still playing, alone on the server, goes faster, and one that
gave up on a refused play left its table waiting for ever."""
# The live-play targets on the 2-core machine (issue 25), at this many tables: Daphne CPU per
# play at most this multiple of the bare app's; saturated (no thinking time) at least this many
# plays/s; with 250 ms of thinking at least this many plays/s and p99 under this.
TARGET_TABLES, TARGET_CPU_RATIO = 100, 2.0
TARGET_SATURATED_PLAYS_PER_SECOND = 800
TARGET_THINK_MS, TARGET_THINKING_PLAYS_PER_SECOND, TARGET_THINKING_P99_MS = 250, 340, 50


class Recorder:
    def __init__(self):
        self.sent: dict[tuple, float] = {}  # (table, hand, card) -> time the player sent it
        self.seen: dict[tuple, list[float]] = {}  # (table, hand, card) -> times other seats received it
        self.plays = 0
        self.healed = 0  # notifications lost by the channel layer, made good by a quiet client's ping
        self.errors: dict[str, int] = {}
        self.first = self.last = None
        self.unfinished = 0  # tables that did not reach their hand limit


async def client(url: str, table: int, seat: int, recorder: Recorder, done: asyncio.Event, think: float):
    import websockets

    hand, pending, latest, acted_at = 0, False, None, -1
    thinking = random.Random(table * 4 + seat)

    async def act(ws):
        nonlocal pending, acted_at
        frame = latest
        view = frame["state"]
        if pending or seat not in view["to_act"] or frame["seq"] <= acted_at:
            return  # busy, not our turn, or already answered this state
        acted_at = frame["seq"]
        if think:
            # A person looks at the table before playing, some moves longer than others.
            await asyncio.sleep(think * thinking.uniform(0.5, 1.5))
        now = time.perf_counter()
        if view["phase"] == "passing":
            # Passes are simultaneous: guarding one with expected_seq would only refuse it
            # whenever another seat passed first. A command_id makes a retry safe instead,
            # as the web table does.
            command = {"type": "pass", "cards": view["hand"][:3], "command_id": f"pass-{view['hand_number']}-{seat}"}
        elif view["phase"] == "playing":
            card = view["legal_plays"][0]
            command = {"type": "play", "card": card}
            recorder.sent[(table, view["hand_number"], card)] = now
            recorder.first = recorder.first or now
        elif view["phase"] == "moon_choice":
            command = {"type": "moon_choice", "choice": "add_to_others"}
        else:
            return
        pending = True
        if command["type"] != "pass":
            command["expected_seq"] = frame["seq"]
        await ws.send(orjson.dumps(command).decode())

    pinged, heard = False, time.monotonic()

    async def play(ws):
        nonlocal pending, acted_at, latest, hand, pinged, heard
        while True:
            try:
                raw = await ws.recv()
            except websockets.ConnectionClosed:
                return
            now = time.perf_counter()
            heard = time.monotonic()
            frame = orjson.loads(raw)
            kind = frame["type"]
            if pinged and kind != "pong":
                recorder.healed += 1  # the ping brought what a lost notification held back
            if kind == "pong" or pinged:
                pinged = False
            if kind == "update":
                for event in frame["events"]:
                    if event["type"] == "HandDealt":
                        hand = event["payload"]["hand_number"]
                    elif event["type"] == "CardPlayed" and event["payload"]["seat"] != seat:
                        recorder.seen.setdefault((table, hand, event["payload"]["card"]), []).append(now)
                    elif event["type"] == "CardPlayed":
                        recorder.plays += 1
                    elif event["type"] in ("HandLimitReached", "GameEnded"):
                        done.set()
                        return
                if frame["state"] is not None:
                    latest = frame
                    await act(ws)
            elif kind in ("ack", "error"):
                pending = False
                if kind == "ack":
                    acted_at = max(acted_at, frame["seq"] - 1)  # earlier states predate our move
                if kind == "error":
                    recorder.errors[frame["code"]] = recorder.errors.get(frame["code"], 0) + 1
                    if frame["code"] == "rate_limited":
                        # The frame was refused unread (a command or a ping): slow down, then
                        # answer the newest state again (a play already made is refused as stale).
                        await asyncio.sleep(RATE_LIMITED_PAUSE)
                        acted_at = -1
                if latest is not None and (kind == "ack" or frame["code"] in ("stale_state", "rate_limited")):
                    await act(ws)  # the newest state may have arrived while we waited

    async with websockets.connect(url, origin="http://localhost", max_size=2**22) as ws:

        async def ping_when_quiet():
            # As the web table does: a quiet connection pings, and the answer brings anything a
            # lost notification held back. One timer per client, not one per frame received.
            nonlocal pinged
            while True:
                await asyncio.sleep(max(0.0, heard + QUIET_PING_SECONDS - time.monotonic()))
                if time.monotonic() - heard >= QUIET_PING_SECONDS:
                    pinged = True
                    await ws.send('{"type": "ping"}')
                    await asyncio.sleep(QUIET_PING_SECONDS)

        watchdog = asyncio.create_task(ping_when_quiet())
        try:
            await play(ws)
        finally:
            watchdog.cancel()


async def run_clients(urls: list[tuple[int, int, str]], timeout: float, think: float) -> Recorder:
    recorder = Recorder()
    tables = {table for table, _, _ in urls}
    done = {table: asyncio.Event() for table in tables}
    tasks = [asyncio.create_task(client(url, table, seat, recorder, done[table], think)) for table, seat, url in urls]
    try:
        await asyncio.wait_for(asyncio.gather(*tasks), timeout)
    except TimeoutError:
        print(f"timed out after {timeout:.0f} s; reporting what was played")
        for task in tasks:
            task.cancel()
    recorder.last = time.perf_counter()
    recorder.unfinished = sum(not event.is_set() for event in done.values())
    return recorder


@dataclass
class Figures:
    """What one run of the clients measured against one server (the project or the bare app)."""

    label: str
    plays: int
    rate: float
    latencies: list[float]
    sent: int
    cpu: dict[str, float]  # seconds per process group
    errors: dict[str, int]
    healed: int
    unfinished: int
    timeline: list[tuple[float, float]]  # (seconds since the first play was sent, its latency in ms), by time

    def tail(self, slower_than_ms: float, bucket: float = 0.5) -> list[tuple[float, int, int, float]]:
        """Where in the run the plays slower than ``slower_than_ms`` were sent: for each
        ``bucket`` seconds holding one, (its start, slow plays, all plays, the slowest's ms)."""
        buckets: dict[float, list[float]] = {}
        for sent, latency in self.timeline:
            buckets.setdefault(sent // bucket * bucket, []).append(latency)
        return [
            (start, sum(latency > slower_than_ms for latency in latencies), len(latencies), max(latencies))
            for start, latencies in sorted(buckets.items())
            if max(latencies) > slower_than_ms
        ]

    def cpu_per_play(self, group: str) -> float:
        return self.cpu.get(group, 0.0) * 1000 / self.plays if self.plays else float("nan")

    def percentile(self, share: float) -> float:
        if not self.latencies:
            return float("nan")
        return self.latencies[min(len(self.latencies) - 1, int(len(self.latencies) * share))]


def measure_project(args, env: dict, measure=None):
    """Seat the tables in the database, start the project's Daphnes and worker, play (or, with
    ``measure``, run that instead of :func:`play_and_measure`, with the same arguments)."""
    from tournaments.clubs.services import player_register
    from tournaments.games.services import SeatSpec, game_create
    from tournaments.games.tickets import ws_ticket_issue

    profiles = profile_paths(args, "project")
    processes, ports = start_processes(args.daphnes, env, profiles=profiles)
    try:
        tag = int(time.time())
        people = [player_register(username=f"load-{tag}-{seat}", password="load-password-123") for seat in range(4)]
        games = [
            game_create(
                creator=people[0],
                hand_limit=args.hands,
                turn_seconds=args.turn_seconds,
                seats=[SeatSpec("me")] + [SeatSpec("player", player_id=p.pk) for p in people[1:]],
            )
            for _ in range(args.tables)
        ]
        urls = []
        for table, game in enumerate(games):
            for seat, player in enumerate(people):
                ticket = ws_ticket_issue(user_id=player.user_id, game_id=game.pk)
                port = ports[(table if args.route == "game" else table * 4 + seat) % len(ports)]
                urls.append((table, seat, f"ws://127.0.0.1:{port}/ws/games/{game.pk}/?ticket={ticket}&after=0"))
        groups = {
            "daphne": [p.pid for p in processes[:-1]],
            "celery worker": [processes[-1].pid],
            "postgres": pids_named("postgres"),
            "redis": pids_named("redis-server"),
            "clients": [os.getpid()],
        }
        figures = (measure or play_and_measure)("project", urls, groups, args)
    finally:
        stop(processes)
    if measure is None:
        print_profile(profiles, "project", figures.plays)
    return figures


def measure_bare(args, env: dict, measure=None, *, durable: bool = False):
    """The same clients against the bare app (bench/bare.py): the framework's own cost; with
    ``durable``, the framework's with each play committed before its ``ack``."""
    if args.route != "game":
        raise SystemExit("--bare and --bare-durable keep each table in the memory of one Daphne: use --route game")
    label = "bare durable" if durable else "bare"
    profiles = profile_paths(args, label.replace(" ", "-"))
    bare_env = {**env, "DJANGO_SETTINGS_MODULE": ""}
    if durable:
        prepare_durable_table()
        bare_env["BARE_DATABASE_URL"] = os.environ["DATABASE_URL"]
    processes, ports = start_processes(args.daphnes, bare_env, bare=True, profiles=profiles)
    try:
        tag = int(time.time()) % 100_000 * 1000
        urls = [
            (
                table,
                seat,
                f"ws://127.0.0.1:{ports[table % len(ports)]}/ws/games/{tag + table}/?seat={seat}&hands={args.hands}",
            )
            for table in range(args.tables)
            for seat in range(4)
        ]
        groups = {"daphne": [p.pid for p in processes], "redis": pids_named("redis-server"), "clients": [os.getpid()]}
        if durable:
            groups["postgres"] = pids_named("postgres")
        figures = (measure or play_and_measure)(label, urls, groups, args)
    finally:
        stop(processes)
    if measure is None:
        print_profile(profiles, label, figures.plays)
    return figures


def prepare_durable_table() -> None:
    """The durable bare app's table of committed plays (``bench.bare.PLAYS_TABLE``), empty."""
    from django.db import connection

    from bench.bare import PLAYS_TABLE  # after django.setup(): bench.bare configures no settings then

    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE TABLE IF NOT EXISTS {PLAYS_TABLE} "
            "(id bigserial PRIMARY KEY, game integer NOT NULL, seq integer NOT NULL, events jsonb NOT NULL)"
        )
        cursor.execute(f"TRUNCATE {PLAYS_TABLE}")


def group_cpu(groups: dict[str, list[int]]) -> dict[str, float]:
    """CPU seconds per group so far; PostgreSQL's backends are listed again at each reading
    (connections open and close during a run) and its reaped backends counted."""
    return {
        name: cpu_seconds(pids_named("postgres") if name == "postgres" else pids, reaped=name == "postgres")
        for name, pids in groups.items()
    }


def play_and_measure(label: str, urls, groups: dict[str, list[int]], args) -> Figures:
    from hearts_league.runtime import settle_garbage_collector

    before = group_cpu(groups)
    # The 400 clients share this process: a full collection of everything Django loaded here
    # would pause them all and add its pause to the latencies they measure.
    settle_garbage_collector()
    recorder = asyncio.run(run_clients(urls, args.timeout, args.think_ms / 1000))
    used = {name: seconds - before[name] for name, seconds in group_cpu(groups).items()}
    timeline = sorted(
        (recorder.sent[key] - recorder.first, (max(times) - recorder.sent[key]) * 1000)
        for key, times in recorder.seen.items()
        if key in recorder.sent and len(times) == 3
    )
    elapsed = (recorder.last - recorder.first) if recorder.first else float("nan")
    return Figures(
        label,
        recorder.plays,
        recorder.plays / elapsed,
        sorted(latency for _, latency in timeline),
        len(recorder.sent),
        used,
        recorder.errors,
        recorder.healed,
        recorder.unfinished,
        timeline,
    )


@dataclass
class Connections:
    """What ``--connections`` measured against one server: every client connected at once, each
    until its first ``update`` frame, then all closed."""

    label: str
    count: int
    opened_in: float  # seconds from the first connect to the last client's first update
    open_cpu: dict[str, float]  # CPU seconds per process group while they opened
    close_cpu: dict[str, float]  # and while they closed (until a second after the last)

    def report(self) -> None:
        each = {
            name: (self.open_cpu[name] * 1000 / self.count, self.close_cpu[name] * 1000 / self.count)
            for name in self.open_cpu
        }
        print(f"--- {self.label}: {self.count} connections opened in {self.opened_in:.2f} s")
        print(
            "CPU per connection (ms), to open / to close: "
            + ", ".join(f"{name} {opened:.2f} / {closed:.2f}" for name, (opened, closed) in each.items())
        )


def open_and_close(label: str, urls, groups: dict[str, list[int]], args) -> Connections:
    """Open every client's connection at once, wait for each one's first ``update`` (the state
    it plays from), then close them all: the CPU a table's sockets cost when a round starts and
    when its players leave (here mid-game: each seat's grace period starts), beside no play."""
    import websockets

    async def connect(url: str, opened: list, leave: asyncio.Event) -> None:
        async with websockets.connect(url, origin="http://localhost", max_size=2**22) as ws:
            while orjson.loads(await ws.recv())["type"] != "update":
                pass
            opened.append(time.perf_counter())
            await leave.wait()

    async def run() -> tuple[float, dict, dict]:
        opened: list[float] = []
        leave = asyncio.Event()
        start = group_cpu(groups)
        began = time.perf_counter()
        clients = [asyncio.create_task(connect(url, opened, leave)) for _, _, url in urls]
        while len(opened) < len(clients):
            done = [client for client in clients if client.done()]
            for client in done:
                client.result()  # a client that failed to connect raises here
            await asyncio.sleep(0.01)
        at_open = group_cpu(groups)
        leave.set()
        await asyncio.gather(*clients)
        await asyncio.sleep(1.0)  # the servers finish their disconnects
        end = group_cpu(groups)
        return (
            max(opened) - began,
            {name: at_open[name] - start[name] for name in start},
            {name: end[name] - at_open[name] for name in start},
        )

    opened_in, open_cpu, close_cpu = asyncio.run(run())
    return Connections(label, len(urls), opened_in, open_cpu, close_cpu)


def report(figures: Figures, args) -> None:
    print(f"--- {figures.label}: {figures.plays} plays = {figures.rate:,.0f} plays/s")
    if figures.latencies:
        print(
            f"play sent -> every other seat received it: p50 {statistics.median(figures.latencies):.0f} ms, "
            f"p99 {figures.percentile(0.99):.0f} ms, max {figures.latencies[-1]:.0f} ms (n={len(figures.latencies)})"
        )
        if len(figures.latencies) < figures.sent:
            print(f"{figures.sent - len(figures.latencies)} play(s) sent were not received by all three other seats")
    print(
        f"errors: {figures.errors or 'none'}; lost notifications made good by a quiet client's ping: {figures.healed}"
    )
    if figures.plays:
        print("CPU per play (ms): " + ", ".join(f"{name} {figures.cpu_per_play(name):.2f}" for name in figures.cpu))
    if figures.unfinished:
        print(f"{figures.unfinished} table(s) did not finish")
    if args.tail and figures.timeline:
        slow = sum(latency > TARGET_THINKING_P99_MS for _, latency in figures.timeline)
        print(
            f"plays slower than {TARGET_THINKING_P99_MS} ms: {slow} ({slow / len(figures.timeline):.1%}); "
            "by half second of the run (from the first play): "
            + ", ".join(
                f"{start:.1f} s {count}/{total} (max {worst:.0f})"
                for start, count, total, worst in figures.tail(TARGET_THINKING_P99_MS)
            )
        )


def judge(project: Figures, bare: Figures | None, args) -> dict[str, bool]:
    """The issue's targets, said met or not (only at their own table count and thinking time);
    returns each judged target's verdict by name."""
    verdicts: dict[str, bool] = {}
    if args.tables < TARGET_TABLES:
        return verdicts
    verdict = {True: "met", False: "NOT met"}
    if bare is not None and bare.plays:
        ratio = project.cpu_per_play("daphne") / bare.cpu_per_play("daphne")
        verdicts["cpu ratio"] = ratio <= TARGET_CPU_RATIO
        print(
            f"target: Daphne CPU per play at most {TARGET_CPU_RATIO:.0f}x the bare app's: {ratio:.2f}x, "
            f"{verdict[verdicts['cpu ratio']]}"
        )
    if args.think_ms == 0:
        verdicts["saturated"] = project.rate >= TARGET_SATURATED_PLAYS_PER_SECOND and not project.unfinished
        print(
            f"target: saturated at least {TARGET_SATURATED_PLAYS_PER_SECOND} plays/s: {project.rate:,.0f}, "
            f"{verdict[verdicts['saturated']]}"
        )
    elif args.think_ms == TARGET_THINK_MS:
        p99 = project.percentile(0.99)
        verdicts["thinking"] = (
            project.rate >= TARGET_THINKING_PLAYS_PER_SECOND and p99 < TARGET_THINKING_P99_MS and not project.unfinished
        )
        print(
            f"target: at {TARGET_THINK_MS} ms thinking at least {TARGET_THINKING_PLAYS_PER_SECOND} plays/s with "
            f"p99 under {TARGET_THINKING_P99_MS} ms: {project.rate:,.0f} plays/s, p99 {p99:.0f} ms, "
            f"{verdict[verdicts['thinking']]}"
        )
    return verdicts


def compare(project: Figures, base: Figures) -> None:
    """The project's Daphne CPU per play and plays/s beside those of a bare app's run."""
    print(
        f"project / {base.label}: Daphne CPU per play {project.cpu_per_play('daphne'):.2f} / "
        f"{base.cpu_per_play('daphne'):.2f} ms = "
        f"{project.cpu_per_play('daphne') / base.cpu_per_play('daphne'):.2f}x; plays/s "
        f"{project.rate:,.0f} / {base.rate:,.0f}"
    )


def summarize(runs: list[tuple[Figures, Figures | None, Figures | None, dict[str, bool]]]) -> None:
    """One line per run, then how many runs met each target (``--runs``)."""
    print(f"\n=== {len(runs)} runs")
    for number, (project, bare, durable, _) in enumerate(runs, 1):
        line = (
            f"run {number}: {project.rate:,.0f} plays/s, "
            f"p50 {statistics.median(project.latencies or [float('nan')]):.0f} "
            f"ms, p99 {project.percentile(0.99):.0f} ms, Daphne {project.cpu_per_play('daphne'):.2f} ms a play"
        )
        if bare is not None and bare.plays:
            line += (
                f"; bare {bare.rate:,.0f} plays/s, {bare.cpu_per_play('daphne'):.2f} ms "
                f"({project.cpu_per_play('daphne') / bare.cpu_per_play('daphne'):.2f}x)"
            )
        if durable is not None and durable.plays:
            line += (
                f"; bare durable {durable.rate:,.0f} plays/s, {durable.cpu_per_play('daphne'):.2f} ms "
                f"({project.cpu_per_play('daphne') / durable.cpu_per_play('daphne'):.2f}x)"
            )
        print(line)
    for target in sorted({name for *_, verdicts in runs for name in verdicts}):
        met = sum(verdicts.get(target, False) for *_, verdicts in runs)
        print(f"target {target}: met in {met} of {len(runs)} runs")


def main() -> int:
    """Run the benchmark and print its figures; 1 if a table did not finish (CI runs it small)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--hands", type=int, default=2, help="hands per table (the table stops after them)")
    parser.add_argument("--daphnes", type=int, default=2, help="Daphne processes (clients spread over them)")
    parser.add_argument(
        "--route",
        choices=["game", "seat"],
        default="game",
        help="game: all of a table's connections reach one Daphne, as a load balancer "
        "that hashes /ws/games/<id>/ sends them (README); seat: a table's seats are "
        "spread over the Daphnes, so every change crosses processes through Redis",
    )
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument(
        "--think-ms",
        type=float,
        default=0,
        help="each player waits this long on average (0.5-1.5 times it, drawn per move) "
        "before acting (0: as fast as the server allows)",
    )
    parser.add_argument(
        "--turn-seconds",
        type=int,
        choices=[30, 60],
        default=None,
        help="give every table a turn clock (a club tournament's): each play then sets the next seat's deadline",
    )
    parser.add_argument(
        "--bare",
        action="store_true",
        help="then run the same clients against bench/bare.py (no database, the same frame "
        "shapes) and print the project's figures beside the framework's",
    )
    parser.add_argument(
        "--bare-durable",
        action="store_true",
        help="also run the bare app committing each play in one statement before its ack (the "
        "durability the project keeps), and print the project's ratio to that too (no effect with --connections)",
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=1,
        help="measure this many times in a row (the bare apps too, with --bare or --bare-durable), then list every run "
        "and how many met each target",
    )
    parser.add_argument(
        "--tail",
        action="store_true",
        help=f"also say when in the run the plays slower than {TARGET_THINKING_P99_MS} ms were sent "
        "(the thinking target's p99 allows 1%% of them): the tables starting, a hand's end, the tables finishing",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="run every Daphne under cProfile (timed by its loop thread's CPU clock) and print "
        "its heaviest functions after each run; the profiler about doubles the CPU a play costs, "
        "so compare shares, not milliseconds",
    )
    parser.add_argument(
        "--connections",
        action="store_true",
        help="measure no play: open every client's connection at once (each until its first update), "
        "close them all, and print the CPU each costs to open and to close (with --bare, the bare "
        "app's beside it)",
    )
    args = parser.parse_args()
    if "postgres" not in os.environ.get("DATABASE_URL", "") or not os.environ.get("REDIS_URL"):
        raise SystemExit("set DATABASE_URL=postgres://... and REDIS_URL=redis://...: this measures the real back ends")

    import django

    from bench.database import ensure_database

    ensure_database()
    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    env = {
        **os.environ,
        "HEARTS_CPU_DELAY": "0",
        "CELERY_QUEUE": f"hearts-load-{os.getpid()}",
        "DEBUG": "false",
        "LOG_LEVEL": "WARNING",
    }
    print(
        f"{args.tables} tables x 4 WebSocket clients, {args.hands} hand(s) each, {args.daphnes} Daphne "
        f"process(es) routed by {args.route}, PostgreSQL + Redis (+ 1 Celery worker for the project), "
        f"think time {args.think_ms:.0f} ms, turn clock {args.turn_seconds or 'none'}; "
        f"machine load average {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} cores"
    )
    if args.connections:
        for number in range(args.runs):
            print(f"\n--- run {number + 1} of {args.runs} (load average {os.getloadavg()[0]:.1f})")
            measure_project(args, env, measure=open_and_close).report()
            if args.bare:
                measure_bare(args, env, measure=open_and_close).report()
        return 0
    runs = []
    for number in range(args.runs):
        if args.runs > 1:
            print(f"\n--- run {number + 1} of {args.runs} (load average {os.getloadavg()[0]:.1f})")
        project = measure_project(args, env)
        report(project, args)
        bare = durable = None
        if args.bare:
            bare = measure_bare(args, env)
            report(bare, args)
        if args.bare_durable:
            durable = measure_bare(args, env, durable=True)
            report(durable, args)
        for base in (bare, durable):
            if base is not None and base.plays and project.plays:
                compare(project, base)
        runs.append((project, bare, durable, judge(project, bare, args)))
    if args.runs > 1:
        summarize(runs)
    unfinished = any(figures is not None and figures.unfinished for *measured, _ in runs for figures in measured)
    return 1 if unfinished else 0


if __name__ == "__main__":
    sys.exit(main())
