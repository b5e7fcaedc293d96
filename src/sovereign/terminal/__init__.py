"""``sovereign chat``'s client of the running service: the HTTP API, from a terminal.

Imports nothing of ours: it speaks only the service's public API (DESIGN §4), so it
can never bypass what the service decides. :mod:`.api` is the client (sign-in, the
streamed conversation), :mod:`.session` the conversation shown in the terminal.
"""
