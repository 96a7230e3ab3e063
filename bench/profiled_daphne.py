"""Daphne under cProfile, for ``bench/load.py --profile``.

    python -m bench.profiled_daphne OUT.prof -b 127.0.0.1 -p 8001 hearts_league.asgi:application

SIGUSR1 starts profiling the event loop's thread (once the server is up: start-up is not in
it); SIGTERM writes the statistics to ``OUT.prof`` and exits. Functions are timed by the thread's
own CPU clock, not the wall clock: on a machine whose cores are all busy, wall time charges
whatever runs when the process is descheduled (a socket's ``send`` that wakes the reader) with
the time it waited. py-spy, the other way to see inside a running Daphne, could not attach here
("Failed to find python version").
"""

from __future__ import annotations

import cProfile
import os
import signal
import sys
import time

from daphne.cli import CommandLineInterface


def main() -> None:
    out, sys.argv = sys.argv[1], ["daphne", *sys.argv[2:]]
    profile = cProfile.Profile(time.thread_time)

    def stop(*_):
        profile.disable()
        profile.dump_stats(out)
        os._exit(0)

    signal.signal(signal.SIGUSR1, lambda *_: profile.enable())
    signal.signal(signal.SIGTERM, stop)
    try:
        CommandLineInterface.entrypoint()
    finally:
        stop()


if __name__ == "__main__":
    main()
