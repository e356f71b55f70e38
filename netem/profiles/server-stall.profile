# The server stalls (SIGSTOP) for 1.5 s, longer than a 1 s deadline, 1 s
# after the clients start and every 5 s after that, then goes on (SIGCONT).
# Applied by the harness, which owns the server: no backend, no root.
event = server-stall at=1s for=1500ms every=5s
