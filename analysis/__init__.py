"""Post-game analysis of finished games: the CPU reviews every decision (``engine.analysis``),
stored in tables of its own (never in a game's event log), computed by Celery tasks and
served to whoever may see the whole game."""
