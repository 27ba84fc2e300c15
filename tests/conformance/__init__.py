"""One corpus of calls through every path a call can take, compared."""
