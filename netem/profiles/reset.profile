# A middlebox resetting every TCP connection between the hosts (ss -K in
# both namespaces), 1 s after the clients start and every 3 s after that.
# nftables backend only (the guest kernel cannot close sockets).
event = reset at=1s every=3s
