# The server process SIGKILLed 1 s after the clients start and every 5 s
# after that, restarted on the same address 1 s after each crash.
# Applied by the harness, which owns the server: no backend, no root.
event = server-crash at=1s for=1s every=5s
