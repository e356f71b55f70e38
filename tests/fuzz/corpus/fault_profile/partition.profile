# A network partition: every packet between the hosts dropped, both ways,
# for 2 s, from 1 s after the clients start and every 6 s after that.
# nftables or netem (a table or ingress filter of its own in each host).
event = partition at=1s for=2s every=6s
