"""Writes. Each service owns its transaction; views, consumers and tasks call these."""
